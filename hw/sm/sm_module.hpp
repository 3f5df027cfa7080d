// The SM as a SystemC module: it owns the SM's TLM-2.0 initiator socket,
// turning the LDST unit's line transactions and the instruction cache's line
// fills into b_transport calls (loosely timed: the target annotates the
// delay; nothing waits; under dram.scheduler: frfcfs a read may come back
// deferred, and the GPU hands its answer to memory_response()), registers the SM-wide waveform probes (scope
// gpu.smN), and has a child module per named structure of its SmCore
// (gpu.smN.register_file, bank_arbitrator, operand_collectors, scratchpad,
// l1d, icache when configured, scheduler<s>), each bound to the plain object
// the core owns for its whole life. Its clock comes from the GPU (GpuModule's
// clock method ticks the SMs that are due in a cycle in SM order, so the
// order in which SMs reach the memory system never depends on how SystemC
// orders processes).
#pragma once

#include <systemc>
#include <tlm>
#include <tlm_utils/simple_initiator_socket.h>

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "hw/common/structure_module.hpp"
#include "hw/common/waveform.hpp"
#include "hw/mem/memory_request_extension.hpp"
#include "hw/sm/mechanism_module.hpp"
#include "hw/sm/sm_core.hpp"

namespace smshare {

class SmModule : public sc_core::sc_module, private GlobalMemoryPort {
 public:
  tlm_utils::simple_initiator_socket<SmModule> socket;

  // Creates the run's mechanism's structure modules for SM `sm_id`; called
  // while the SM module is being constructed, so they are its children
  // (gpu.smN.lock_array). The GPU fills it from the mechanism's registry
  // entry (mechanism_module.hpp explains the scheme).
  using MechanismModuleFactory =
      std::function<std::vector<std::unique_ptr<MechanismStructureModule>>(uint32_t sm_id)>;

  // `slots`: the warp and CTA slots the SM holds (the run's mechanism's;
  // the SM's own when not given).
  SmModule(sc_core::sc_module_name name, uint32_t sm_id, const GpuSpec& gpu,
           const MechanismModuleFactory& make_mechanism_modules = {}, std::optional<SmSlots> slots = std::nullopt);

  SmCore& core() { return *core_; }
  const SmCore& core() const { return *core_; }

  // Starts `kernel` on the core with `mechanism`, the SM's instance of the
  // run's mechanism for it, and binds the mechanism's modules to it.
  void begin_kernel(KernelSource& kernel, Mechanism mechanism, CtaDispatcher& dispatcher);

  // Registers this SM's SM-wide probes on `wave` under its scope (gpu.smN.*);
  // its structures, the mechanism's among them, register their own
  // (trace_structures). Whether the SM ticks every cycle is the GPU's choice
  // (the window).
  void trace(Waveform& wave);

  // Ticked on several host threads (GpuModule, --host-threads): the SM's
  // memory requests and its shared-state accesses wait for its turn and its
  // requests run on the main thread (tick_turn.hpp).
  void set_tick_turn(TickTurn* turn) {
    turn_ = turn;
    core_->set_tick_turn(turn);
  }

  // In a cycle ticked in parallel: books the requests the SM left for later
  // and has not had booked yet, in the order made (main thread; the GPU
  // calls it in SM order) ...
  void book_later_requests();
  // ... and, after the cycle's ticks, hands the SM their answers; returns
  // the first cycle from which it must be ticked for them (SmCore::kNever:
  // none sooner than its tick said).
  uint64_t apply_later_answers();
  bool has_later_requests() const { return !later_requests_.empty(); }

  // The memory system's answer to a deferred read (dram.scheduler: frfcfs):
  // the read named `token` is entirely back at `done_ps`. Returns the cycle
  // from which the SM must be ticked (the first at or after `done_ps`).
  uint64_t memory_response(uint64_t token, uint64_t done_ps);

 private:
  uint64_t access(uint64_t line_addr, ChunkMask chunks, bool is_write, uint64_t cycle, uint64_t token) override;
  uint64_t access_or_later(uint64_t line_addr, ChunkMask chunks, bool is_write, uint64_t cycle,
                           uint64_t token) override;
  // access() (`may_answer_later`: access_or_later()) ticked on a host
  // thread of its own: leaves the request for later, or waits for the SM's
  // turn on the main thread. Out of line, so that in the usual run (no
  // turn) both are a test and a jump to transport(): with this inline, each
  // transaction paid the saving of six registers and a stack frame it did
  // not use (about 20 host instructions).
  [[gnu::noinline]] uint64_t access_in_turn(uint64_t line_addr, ChunkMask chunks, bool is_write, uint64_t cycle,
                                            uint64_t token, bool may_answer_later);
  // The b_transport of access(), on the main thread.
  uint64_t transport(uint64_t line_addr, ChunkMask chunks, bool is_write, uint64_t cycle, uint64_t token);
  // transport()'s error report, out of line: building its message inline
  // made transport() save and restore six registers on every transaction.
  [[gnu::cold, gnu::noinline]] void report_failed_access(uint64_t line_addr, uint64_t cycle) const;
  // The child modules of the core's structures (in the constructor).
  void add_structures();

  const uint32_t sm_id_;
  const uint64_t period_ps_;
  const sc_core::sc_time resolution_ = sc_core::sc_get_time_resolution();  // 1 ps: ps_time()'s unit
  std::unique_ptr<SmCore> core_;
  std::vector<std::unique_ptr<MechanismStructureModule>> mechanism_modules_;
  tlm::tlm_generic_payload payload_;
  MemoryRequestExtension* request_;  // payload_'s, kept at hand
  TickTurn* turn_ = nullptr;         // null: ticked on the main thread only
  // This cycle's requests left for later (access_or_later), the first
  // `later_booked_` of them booked, with their answers.
  struct LaterRequest {
    uint64_t line_addr;
    ChunkMask chunks;
    bool is_write;
    uint64_t cycle;
    uint64_t token;
  };
  std::vector<LaterRequest> later_requests_;
  std::vector<uint64_t> later_answers_;
  size_t later_booked_ = 0;
  std::vector<std::unique_ptr<StructureModule>> structures_;
};

}  // namespace smshare
