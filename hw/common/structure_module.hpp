// A named hardware structure in the SystemC hierarchy (gpu.memory.l2_slice3,
// gpu.sm3.bank_arbitrator): a thin sc_module over the plain-C++ object that
// holds the structure's state and cycle logic (DESIGN.md principle 1).
//
// The module names the structure, declares its waveform probes and exposes
// its activity counters; it is not a process and costs nothing per cycle:
// the GPU clock ticks the SMs, which call the plain objects directly.
//
//   class L2SliceModule : public StructureModule {
//    public:
//     L2SliceModule(sc_core::sc_module_name n, const L2Slice& slice)
//         : StructureModule(n, "L2 slice", "L2Slice"), slice_(slice) {
//       probe("misses", misses_);            // gpu.memory.l2_slice0.misses
//     }
//     void update_probes(uint64_t cycle) override;  // only for computed probes
//     StructureCounters counters() const override;
//   };
//
// A probe is a plain integer that either the plain object keeps current as it
// works (a plain store; the waveform reads it only when tracing), or the
// module computes in update_probes() from the plain object's state, for
// structures with no per-cycle notion (the memory system books a request end
// to end by next-free time when the SM issues it) and for modules bound to a
// plain object built per kernel launch (the probe's address must not change).
#pragma once

#include <systemc>

#include <cstdint>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "hw/common/waveform.hpp"

namespace smshare {

// A structure's activity counters (accesses, hits, grants, ...): name and
// value, in a fixed order.
using StructureCounters = std::vector<std::pair<std::string, uint64_t>>;

class StructureModule : public sc_core::sc_module {
 public:
  // The `sm` of a structure that belongs to no SM (interconnect, L2, DRAM, ...).
  static constexpr uint32_t kGpuWide = ~0u;

  // One waveform probe: a plain integer that stays at the same address from
  // elaboration to the end of the run.
  struct Probe {
    std::string name;  // within the module's scope: "misses" is gpu.memory.l2_slice0.misses
    std::variant<const int32_t*, const uint32_t*, const uint64_t*> value;
    unsigned bits;
    const WaveEnum* names;  // enum-valued probes: names of the values; else nullptr
  };

  // sc_object::kind(), so the hierarchy listing shows it: what an architect
  // calls the structure ("L2 slice", "bank arbitrator").
  const char* kind() const override { return kind_; }
  // The plain-C++ class that holds the structure's state and cycle logic.
  const char* plain_class() const { return plain_class_; }
  // The SM the structure belongs to, or kGpuWide.
  uint32_t sm() const { return sm_; }
  const std::vector<Probe>& probes() const { return probes_; }

  // Registers every probe on `waveform` as <module name>.<probe name>.
  // Returns false, registering nothing, for a structure of an SM the run
  // does not trace (--vcd-sms).
  bool trace(Waveform& waveform) const {
    if (sm_ != kGpuWide && !waveform.traces_sm(sm_)) return false;
    for (const Probe& p : probes_)
      std::visit([&](auto* value) { waveform.add(std::string(name()) + "." + p.name, *value, p.bits, p.names); },
                 p.value);
    return true;
  }

  // Brings the computed probes up to date for `cycle`. Once tracing is on,
  // the GPU clock calls it for every traced module in every cycle it runs
  // (inside the --vcd-window or not), after the SMs ticked and before
  // Waveform::sample(cycle). Modules whose probes the plain object keeps
  // current do not override it.
  virtual void update_probes(uint64_t /*cycle*/) {}

  // The structure's activity counters since elaboration.
  virtual StructureCounters counters() const = 0;

 protected:
  StructureModule(sc_core::sc_module_name name, const char* kind, const char* plain_class, uint32_t sm = kGpuWide)
      : sc_core::sc_module(name), kind_(kind), plain_class_(plain_class), sm_(sm) {}

  // Declares a probe (in the constructor). `value` must live as long as the module.
  void probe(std::string name, const int32_t& value, unsigned bits = 32, const WaveEnum* names = nullptr) {
    probes_.push_back({std::move(name), &value, bits, names});
  }
  void probe(std::string name, const uint32_t& value, unsigned bits = 32, const WaveEnum* names = nullptr) {
    probes_.push_back({std::move(name), &value, bits, names});
  }
  void probe(std::string name, const uint64_t& value, unsigned bits = 64, const WaveEnum* names = nullptr) {
    probes_.push_back({std::move(name), &value, bits, names});
  }

 private:
  const char* kind_;
  const char* plain_class_;
  uint32_t sm_;
  std::vector<Probe> probes_;
};

// A computed probe for a structure that only keeps running totals: how much
// a total grew since the previous update_probes(), i.e. in this cycle.
class ThisCycleCount {
 public:
  explicit ThisCycleCount(uint64_t total_so_far = 0) : last_total_(total_so_far) {}
  void update(uint64_t total) {
    value_ = static_cast<uint32_t>(total - last_total_);
    last_total_ = total;
  }
  const uint32_t& value() const { return value_; }

 private:
  uint32_t value_ = 0;
  uint64_t last_total_;
};

// Every StructureModule under `root` (and `root` itself if it is one), depth
// first in creation order.
std::vector<StructureModule*> structures_under(const sc_core::sc_object& root);

// Registers the probes of every structure under `root` on `waveform`, and
// returns the modules that registered some: the GPU clock calls their
// update_probes(cycle) before each Waveform::sample(cycle).
inline std::vector<StructureModule*> trace_structures(const sc_core::sc_object& root, Waveform& waveform) {
  std::vector<StructureModule*> traced;
  for (StructureModule* m : structures_under(root))
    if (m->trace(waveform)) traced.push_back(m);
  return traced;
}

// The SystemC hierarchy under `root` as an indented tree, one line per
// module, TLM socket and process: full name, kind (a StructureModule's own,
// else SystemC's: sc_module, tlm_initiator_socket, sc_method_process) and,
// for structures, the plain-C++ class holding the state. A vector of sockets
// is one line ("15 x tlm_target_socket"); the ports, exports and event
// queues inside the sockets are left out.
std::string describe_hierarchy(const sc_core::sc_object& root);

}  // namespace smshare
