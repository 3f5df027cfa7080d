// The memory system as a TLM-2.0 loosely-timed target: one target socket per
// SM, tagged with the SM id. Timing only: global memory has no backing data;
// the swap region keeps the bytes an initiator carrying data writes there.
//
// Binding: sm.socket.bind(mem.sm_socket(sm_id))  (any tlm_initiator_socket<32>; the
//          socket also takes nb_transport_fw BEGIN_REQ, completed at once: Socket)
// Call:    from an SC_METHOD or SC_THREAD, b_transport(payload, delay) with
//          one READ or WRITE of `length` bytes inside one L2 line (contiguous
//          from the address, or the chunks a MemoryRequestExtension names, then
//          `length` = chunks x 32: memory_request_extension.hpp); on entry
//          `delay` = offset from sc_time_stamp() at which the request leaves
//          the SM, on return = offset at which the whole response (read data
//          or write ack) is back at the SM. b_transport never waits.
// Deferred: under dram.scheduler: frfcfs a READ whose payload carries a
//          MemoryRequestExtension may come back with `deferred` set: its
//          time is decided later, and advance() returns it as a
//          MemCompletion (the SM's id, the extension's token, the time),
//          which the GPU hands to that SM.
// Status:  OK; TLM_ADDRESS_ERROR_RESPONSE outside global memory and swap;
//          TLM_GENERIC_ERROR_RESPONSE for a zero length, one crossing a line,
//          or one that disagrees with the chunk mask.
//          On an error nothing is booked and `delay` is unchanged.
//
// Children: the structures of the memory side, each a StructureModule bound
// to its plain object inside MemoryTiming: interconnect, l2_slice<p> and
// dram_channel<p> for every partition p.
#pragma once

#include <cstdint>
#include <memory>
#include <unordered_map>
#include <vector>

#include <nlohmann/json.hpp>
#include <systemc>
#include <tlm>

#include "hw/common/activity.hpp"
#include "hw/common/gpu_config.hpp"
#include "hw/mem/dram_channel_module.hpp"
#include "hw/mem/interconnect_module.hpp"
#include "hw/mem/l2_slice_module.hpp"
#include "hw/mem/memory_timing.hpp"

namespace smshare {

class MemorySystem : public sc_core::sc_module {
 public:
  // An SM's target socket: a TLM-2.0 target socket whose forward interface
  // hands each b_transport straight to the memory system with the socket's
  // SM id. (simple_target_socket_tagged went through a forwarding function
  // and a member-function pointer with the tag: about 28 host instructions
  // a transaction.) The memory system is loosely timed: nb_transport_fw
  // completes a BEGIN_REQ at once through b_transport (the base protocol's
  // early completion); it offers no DMI and no debug transport.
  class Socket : public tlm::tlm_target_socket<32> {
   public:
    Socket(const char* name, MemorySystem& memory, uint32_t sm);

   private:
    struct Forward : tlm::tlm_fw_transport_if<> {
      Forward(MemorySystem& memory, uint32_t sm) : memory_(memory), sm_(sm) {}
      void b_transport(tlm::tlm_generic_payload& p, sc_core::sc_time& delay) override;
      tlm::tlm_sync_enum nb_transport_fw(tlm::tlm_generic_payload& p, tlm::tlm_phase& phase,
                                         sc_core::sc_time& delay) override;
      bool get_direct_mem_ptr(tlm::tlm_generic_payload& p, tlm::tlm_dmi& dmi) override;
      unsigned int transport_dbg(tlm::tlm_generic_payload& p) override;

      MemorySystem& memory_;
      const uint32_t sm_;
    };
    Forward forward_;
  };

  // One socket per SM (spec.num_sms). `dram_capacity_bytes` as in MemoryTiming
  // (0: global memory is everything below dram.swap_base).
  MemorySystem(sc_core::sc_module_name name, const GpuSpec& spec, uint64_t dram_capacity_bytes = 0);

  Socket& sm_socket(uint32_t sm) { return sockets_[sm]; }

  bool is_swap(uint64_t addr) const { return timing_.is_swap(addr); }
  // Requests in the DRAM channels whose data is not yet returned at `now` (a
  // VCD probe), while kept: MemoryTiming::keep_dram_queue_depth, on from the
  // start; the GPU keeps them only for a waveform.
  uint32_t dram_queue_depth(const sc_core::sc_time& now) const { return timing_.dram_queue_depth(now.value()); }
  void keep_dram_queue_depth(bool keep) { timing_.keep_dram_queue_depth(keep); }
  void collect(ActivityCounters& out) const { timing_.collect(out); }
  nlohmann::json stats_json() const { return timing_.stats_json(); }
  const MemoryTiming& timing() const { return timing_; }

  // dram.scheduler: frfcfs (see MemoryTiming): takes the DRAM decisions due
  // before `before` and appends the deferred reads they complete to `out`.
  void advance(const sc_core::sc_time& before, std::vector<MemCompletion>& out) {
    timing_.advance(before.value(), out);
  }
  bool defers_responses() const { return timing_.frfcfs(); }
  const InterconnectModule& interconnect() const { return *interconnect_; }
  const L2SliceModule& l2_slice(uint32_t p) const { return *l2_slices_[p]; }
  const DramChannelModule& dram_channel(uint32_t c) const { return *dram_channels_[c]; }

 private:
  // Compiled into the socket's b_transport (a forwarding call less a
  // transaction).
  [[gnu::always_inline]] void b_transport(uint32_t sm, tlm::tlm_generic_payload& p, sc_core::sc_time& delay);

  sc_core::sc_vector<Socket> sockets_;
  const sc_core::sc_time resolution_ = sc_core::sc_get_time_resolution();  // 1 ps (checked): ps_time()'s unit
  MemoryTiming timing_;
  std::unordered_map<uint64_t, unsigned char> swap_data_;  // bytes written to the swap region with data
  // After timing_: they refer to its objects and are destroyed first.
  std::unique_ptr<InterconnectModule> interconnect_;
  std::vector<std::unique_ptr<L2SliceModule>> l2_slices_;
  std::vector<std::unique_ptr<DramChannelModule>> dram_channels_;
};

}  // namespace smshare
