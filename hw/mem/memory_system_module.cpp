#include "hw/mem/memory_system_module.hpp"

#include <cstring>
#include <string>

#include "hw/mem/memory_request_extension.hpp"
#include "hw/mem/ps_time.hpp"

namespace smshare {

MemorySystem::MemorySystem(sc_core::sc_module_name name, const GpuSpec& spec, uint64_t dram_capacity_bytes)
    : sc_core::sc_module(name), sockets_("sm_socket"), timing_(spec, dram_capacity_bytes) {
  // The timing core counts picoseconds; sc_time values are used as such.
  if (resolution_ != sc_core::sc_time(1, sc_core::SC_PS))
    SC_REPORT_ERROR(this->name(), "MemorySystem needs a SystemC time resolution of 1 ps");
  sockets_.init(spec.num_sms, [this](const char* socket_name, size_t sm) {
    return new Socket(socket_name, *this, static_cast<uint32_t>(sm));
  });
  interconnect_ = std::make_unique<InterconnectModule>("interconnect", timing_.icnt());
  for (uint32_t p = 0; p < timing_.partitions(); ++p)
    l2_slices_.push_back(std::make_unique<L2SliceModule>(("l2_slice" + std::to_string(p)).c_str(), timing_.l2(p)));
  for (uint32_t p = 0; p < timing_.partitions(); ++p)
    dram_channels_.push_back(std::make_unique<DramChannelModule>(("dram_channel" + std::to_string(p)).c_str(),
                                                                 timing_.dram(p), spec.core_period_ps()));
}

MemorySystem::Socket::Socket(const char* name, MemorySystem& memory, uint32_t sm)
    : tlm::tlm_target_socket<32>(name), forward_(memory, sm) {
  bind(forward_);
}

tlm::tlm_sync_enum MemorySystem::Socket::Forward::nb_transport_fw(tlm::tlm_generic_payload& p, tlm::tlm_phase& phase,
                                                                  sc_core::sc_time& delay) {
  if (phase != tlm::BEGIN_REQ) {
    SC_REPORT_ERROR(memory_.name(), "nb_transport_fw: only BEGIN_REQ is expected (every request completes at once)");
    return tlm::TLM_COMPLETED;
  }
  Forward::b_transport(p, delay);
  phase = tlm::BEGIN_RESP;
  return tlm::TLM_COMPLETED;
}

bool MemorySystem::Socket::Forward::get_direct_mem_ptr(tlm::tlm_generic_payload&, tlm::tlm_dmi& dmi) {
  // No DMI: the whole address range is denied (as simple_target_socket answers without a callback).
  dmi.set_start_address(0);
  dmi.set_end_address(~sc_dt::uint64{0});
  return false;
}

unsigned int MemorySystem::Socket::Forward::transport_dbg(tlm::tlm_generic_payload&) { return 0; }

inline void MemorySystem::b_transport(uint32_t sm, tlm::tlm_generic_payload& p, sc_core::sc_time& delay) {
  p.set_dmi_allowed(false);
  const tlm::tlm_command cmd = p.get_command();
  if (cmd == tlm::TLM_IGNORE_COMMAND) {
    p.set_response_status(tlm::TLM_OK_RESPONSE);
    return;
  }
  const uint64_t now = simcontext()->time_stamp().value();  // inline, unlike sc_time_stamp()
  MemRequest r;
  r.sm = sm;
  r.addr = p.get_address();
  r.bytes = p.get_data_length();
  auto* ext = p.get_extension<MemoryRequestExtension>();
  if (ext) {
    r.chunks = ext->chunks;
    r.token = ext->token;
    ext->deferred = false;
  }
  r.is_write = cmd == tlm::TLM_WRITE_COMMAND;
  r.now_ps = now;
  r.issue_ps = now + delay.value();
  uint64_t done = 0;
  switch (timing_.access(r, done)) {
    case MemStatus::ok:
      // Global memory has no backing store: its reads return zeros, so
      // results are deterministic. The swap region keeps what an initiator
      // that carries data wrote (a mechanism's spilled state must come back
      // as it went out); the SMs' own transactions carry none (timing only).
      if (p.get_data_ptr() && timing_.is_swap(r.addr)) {
        unsigned char* data = p.get_data_ptr();
        for (uint32_t i = 0; i < r.bytes; ++i) {
          if (r.is_write) {
            swap_data_[r.addr + i] = data[i];
          } else {
            const auto it = swap_data_.find(r.addr + i);
            data[i] = it == swap_data_.end() ? 0 : it->second;
          }
        }
      } else if (!r.is_write && p.get_data_ptr()) {
        std::memset(p.get_data_ptr(), 0, r.bytes);
      }
      if (done == MemoryTiming::kDeferred) {
        if (!ext) SC_REPORT_ERROR(name(), "a deferred response needs a MemoryRequestExtension on the payload");
        ext->deferred = true;
      } else {
        delay = ps_time(done - now, resolution_);
      }
      p.set_response_status(tlm::TLM_OK_RESPONSE);
      break;
    case MemStatus::address_error:
      p.set_response_status(tlm::TLM_ADDRESS_ERROR_RESPONSE);
      break;
    case MemStatus::length_error:
    case MemStatus::port_error:
      p.set_response_status(tlm::TLM_GENERIC_ERROR_RESPONSE);
      break;
  }
}

void MemorySystem::Socket::Forward::b_transport(tlm::tlm_generic_payload& p, sc_core::sc_time& delay) {
  memory_.b_transport(sm_, p, delay);
}

}  // namespace smshare
