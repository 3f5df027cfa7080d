// Dhar & Chen's cross-SM sharing as a mechanism: the settings (`crosssm.*`),
// an SM's place in the run (per-SM settings, SmConfiguration::settings), and
// the per-SM policies:
//  * admission in two pools (Occ, Bal): a CTA lives in the active SM's own
//    resources or wholly in those it borrows (configuration.hpp, Pools); one
//    merged pool for BigSM, whose CTAs span both SMs;
//  * the register indexing policy (Sec. V-B2): a warp of a borrowed-pool CTA
//    (Occ, Bal), or the upper half of a wide warp (BigSM), has home 1: its
//    registers are in the neighbour's banks (BankGroup::RemoteRegisterFile;
//    Bal: the half of them lent to this SM) and its operand collector is one
//    of the neighbour's (Mechanism::own_collector_units);
//  * the gate lets every warp issue and counts what crosses the boundary
//    (BoundaryTraffic); the SM keeps a wide warp's halves in step
//    (Mechanism::wide_warps).
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "hw/sharing/crosssm/configuration.hpp"
#include "hw/sharing/registry.hpp"

namespace smshare::crosssm {

// The family's settings (one per run).
struct Settings : MechanismSettings {
  Scheme scheme = Scheme::Occ;
  bool bypass = false;           // configuration bits off: every SM a baseline SM, dummy stages bypassed
  uint32_t boundary_cycles = 1;  // cycles a crossing adds (Sec. VI-A: 1 at 700 MHz)
};

// One SM's settings: the run's and its place (SmConfiguration::settings).
struct SmSettings : MechanismSettings {
  Settings run;
  Placement place;
  SmSpec base;  // the GPU's SM, before the configuration merges anything
};

// What crossed an active SM's boundary buffers, and what passed its dummy
// stages, since the kernel started (counted at issue: an instruction in
// flight when the run ends has crossed).
struct BoundaryTraffic {
  uint64_t instruction_buffer = 0;  // instructions decoded into the neighbour's instruction-buffer bank
  uint64_t operand_dispatch = 0;    // instructions whose operands crossed to the other SM's units
  uint64_t operands_crossed = 0;    // ... their source operands (a warp-wide register each)
  uint64_t mirrored_issues = 0;     // BigSM: wide-warp instructions issued to both halves in one cycle
  uint64_t split_issues = 0;        // BigSM: upper-half instructions issued in a later cycle than the lower's
  uint64_t divergent_issues = 0;    // ... of them, a different instruction than the lower half's (traces)
  uint64_t remote_scratchpad = 0;   // LDS/STS to the scratchpad banks lent by the neighbour
  uint64_t dummy_stage = 0;         // instructions through the local path's dummy stage
};

// An SM's cross-SM state for one kernel: the boundary traffic, and how far
// each wide warp's halves have issued (BigSM), to tell a mirrored issue from
// a split one. The gate and hooks of its mechanism instance are views on it;
// the modules read it (crosssm_modules.hpp).
class CrossSmState {
 public:
  CrossSmState(const SmSettings& s, uint32_t warps_per_cta, uint32_t cta_slots);
  const BoundaryTraffic& traffic() const { return traffic_; }
  // Register accesses its warps made to the neighbour's banks (the bank
  // arbitrator's grants in its RemoteRegisterFile group this kernel).
  uint64_t remote_register_accesses() const;

  // WarpGate::issued: counts the crossings of the instruction `w` issued.
  void issued(const WarpContext& w, const WarpInstruction& inst);
  // MechanismHooks.
  void begin_cycle(uint64_t cycle) { now_ = cycle; }
  void bind(const BankArbitrator& arbitrator);
  void counters(std::vector<std::pair<std::string, uint64_t>>& c) const;
  // The boundary buffer's accesses (its CACTI cfg): each crossing writes an
  // entry on one side and reads it on the other (an operand, an
  // instruction, a scratchpad access's data, a mirrored issue's request).
  void collect(ActivityCounters& out) const;

 private:
  // One half of a wide warp: how far it has issued.
  struct Half {
    uint64_t age = ~0ull;  // the warp it counts for (a CTA's warps have consecutive ages)
    uint64_t issued = 0;
    uint64_t last_issue_cycle = ~0ull;
    static constexpr uint32_t kPcs = 16;
    std::array<uint64_t, kPcs> pcs{};  // pc of instruction n at n % kPcs (the lower half's)
  };
  Half& half(const WarpContext& w);
  // The other half of `w`'s wide warp, if it has launched (else null).
  const Half* other_half(const WarpContext& w) const;
  bool wide() const { return shape(settings_.run.scheme).wide_warps; }

  SmSettings settings_;
  uint32_t warps_per_cta_;
  BoundaryTraffic traffic_;
  std::vector<Half> halves_;  // per (CTA slot, warp in CTA)
  uint64_t now_ = 0;
  const BankArbitrator* arbitrator_ = nullptr;
  uint64_t remote_before_ = 0;  // the arbitrator's count when the kernel started
};

// The state of `m` when it is a cross-SM mechanism's instance, else null.
const CrossSmState* crosssm_state_of(const Mechanism& m);

// The SM's instance for `kernel` (`sm` is the SM's configured spec).
Mechanism make(const SmSpec& sm, const KernelResources& kernel, const std::string& origin, const SmSettings& s);

// Resident CTAs of an active SM (what `smshare occupancy` prints).
Occupancy active_occupancy(Scheme scheme, const SmSpec& base, const KernelResources& k, const std::string& origin);

}  // namespace smshare::crosssm
