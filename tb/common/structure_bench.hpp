// What a structure's module sees of the GPU in a testbench: the GPU clock
// and the waveform writer. An SC_METHOD runs cycles 0..last_cycle and, in
// each, calls `drive(cycle)` (the requests the test sends the structure's
// plain object in that cycle, as the SMs would), then the module's
// update_probes(cycle), then records every probe the module declared, as
// Waveform::sample would write it. The test reads the recorded values back
// with probe(name, cycle) and the module's counters() after sc_start().
//
// SystemC elaborates one simulation per process, so each TEST needs its own:
// ctest runs them that way (gtest_discover_tests); by hand, run one at a
// time: build/tb_structures_scratchpad --gtest_filter=ScratchpadModule.*Four*
#pragma once

#include <gtest/gtest.h>

#include <systemc>

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <variant>
#include <vector>

#include "hw/common/structure_module.hpp"

namespace smshare::tb {

class StructureBench : public sc_core::sc_module {
 public:
  using Drive = std::function<void(uint64_t cycle)>;

  StructureBench(sc_core::sc_module_name name, StructureModule& dut, uint64_t period_ps, uint64_t last_cycle,
                 Drive drive)
      : sc_module(name), dut_(dut), period_ps_(period_ps), last_cycle_(last_cycle), drive_(std::move(drive)) {
    SC_METHOD(clock);
  }

  // The value probe `name` had in `cycle` (0 for an undeclared probe, which
  // fails the test).
  int64_t probe(const std::string& name, uint64_t cycle) const {
    auto it = samples_.find(name);
    if (it == samples_.end() || cycle >= it->second.size()) {
      ADD_FAILURE() << dut_.name() << " has no probe '" << name << "' sampled in cycle " << cycle;
      return 0;
    }
    return it->second[cycle];
  }

 private:
  SC_HAS_PROCESS(StructureBench);
  void clock() {
    const uint64_t cycle = sc_core::sc_time_stamp().value() / period_ps_;
    drive_(cycle);
    dut_.update_probes(cycle);
    for (const StructureModule::Probe& p : dut_.probes())
      samples_[p.name].push_back(std::visit([](auto* v) { return static_cast<int64_t>(*v); }, p.value));
    if (cycle < last_cycle_) next_trigger(sc_core::sc_time::from_value(period_ps_));
  }

  StructureModule& dut_;
  uint64_t period_ps_;
  uint64_t last_cycle_;
  Drive drive_;
  std::map<std::string, std::vector<int64_t>> samples_;  // per probe, one value per cycle
};

// The counter `name` of `dut` (fails the test if the module has none).
// The value probe `name` of `dut` holds now (0, failing the test, if it has
// no such probe): for a second module a bench's drive updates itself.
inline int64_t probe_now(const StructureModule& dut, const std::string& name) {
  for (const StructureModule::Probe& p : dut.probes())
    if (p.name == name) return std::visit([](auto* v) { return static_cast<int64_t>(*v); }, p.value);
  ADD_FAILURE() << dut.name() << " has no probe '" << name << "'";
  return 0;
}

inline uint64_t counter(const StructureModule& dut, const std::string& name) {
  for (const auto& [n, v] : dut.counters())
    if (n == name) return v;
  ADD_FAILURE() << dut.name() << " has no counter '" << name << "'";
  return 0;
}

}  // namespace smshare::tb
