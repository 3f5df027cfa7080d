// Zorua (Vijaykumar et al. 2016) in the mechanism registry. Not simulated
// yet: registered for its hardware cost (Sec. 4.5), which `smshare area` and
// the energy model read.
#include "hw/sharing/registry.hpp"

namespace smshare::zorua {
namespace {

// Sec. 5.1: 64 logical warps and 16 logical thread blocks per SM; registers
// mapped in sets of 4 per thread (Sec. 4.5.1), scratchpad in 1 KB sets.
constexpr uint32_t kLogicalWarps = 64;
constexpr uint32_t kLogicalCtas = 16;
constexpr uint32_t kRegsPerSet = 4;
constexpr uint32_t kSpmSetBytes = 1024;
constexpr uint32_t kMaxRegsPerThread = 63;  // Fermi's architectural registers

AddedHardware hardware(const GpuSpec& spec) {
  const char* sec = "Zorua (Vijaykumar et al. 2016), Sec. 4.5";
  const uint64_t W = spec.sm.max_warps;
  const uint64_t reg_sets = spec.sm.registers / (uint64_t{kRegsPerSet} * spec.sm.warp_size);
  const uint64_t sets_per_warp = (kMaxRegsPerThread + kRegsPerSet - 1) / kRegsPerSet;
  const uint64_t spm_sets = spec.sm.scratchpad_bytes / kSpmSetBytes;
  AddedHardware h;
  auto& v = h.structures;
  v.push_back({"register_mapping_table", "register_mapping_table",
               kLogicalWarps * sets_per_warp * (ceil_log2(reg_sets) + 1), 1, sec});
  v.push_back({"scratchpad_mapping_table", "scratchpad_mapping_table",
               kLogicalCtas * spm_sets * (ceil_log2(spm_sets) + 1), 1, sec});
  v.push_back({"warp_slot_mapping_table", "warp_slot_mapping_table", kLogicalWarps * (ceil_log2(W) + 1), 1, sec});
  // Three queues (thread/barrier, scratchpad, register) of logical warp ids;
  // size not given in the paper: one entry per logical warp.
  v.push_back({"coordinator_queue", "coordinator_queue", kLogicalWarps * ceil_log2(kLogicalWarps), 3,
               "Zorua Sec. 4.1-4.2 (size assumed)"});
  // Two counters per resource (free, swapped) and a schedulable bit per warp slot (Sec. 4.1 fn. 6).
  const uint64_t counters = 2 * (ceil_log2(reg_sets + 1) + ceil_log2(spm_sets + 1) + ceil_log2(W + 1));
  v.push_back({"coordinator_counters", "coordinator_queue", counters + W, 1, "Zorua Sec. 4.5 and fn. 6"});
  return h;
}

}  // namespace

void register_mechanisms(MechanismRegistry& registry) {
  MechanismDescriptor d;
  d.name = "zorua";
  d.family = "zorua";
  d.description = "Zorua (Vijaykumar et al. 2016): registers, scratchpad and warp slots virtualized through "
                  "mapping tables and a coordinator, with swap space in global memory";
  d.hardware = [](const GpuSpec& spec, const MechanismSettings&) { return hardware(spec); };
  registry.add(std::move(d));
}

}  // namespace smshare::zorua
