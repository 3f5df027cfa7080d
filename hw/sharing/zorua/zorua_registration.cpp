// Zorua (Vijaykumar et al. 2016) in the mechanism registry: the `zorua.*`
// settings, the logical slots and occupancy, the factory
// (zorua_mechanism.hpp), the structure modules, and the Sec. 4.5 storage
// that `smshare hw-cost`, `smshare area` and the energy model read.
#include "hw/common/error.hpp"
#include "hw/sharing/registry.hpp"
#include "hw/sharing/zorua/zorua_mechanism.hpp"
#include "hw/sharing/zorua/zorua_modules.hpp"

namespace smshare::zorua {
namespace {

constexpr uint32_t kMaxRegsPerThread = 63;  // Fermi's architectural registers: 16 sets per warp (Sec. 4.5.1)

std::shared_ptr<MechanismSettings> declare_settings(ParamTable& table) {
  auto s = std::make_shared<Settings>();
  Settings* m = s.get();
  table.add_uint("zorua.logical_warps", &m->logical_warps, 1, 1024,
                 "warp slots the coordinator manages per SM; at least sm.max_warps (Sec. 5.1: 64)");
  table.add_uint("zorua.logical_ctas", &m->logical_ctas, 1, 256,
                 "CTA slots per SM; at least sm.max_ctas (Sec. 5.1: 16)");
  table.add_uint("zorua.o_default", &m->o_default_percent, 0, 1000,
                 "Algorithm 1's initial threshold: sets in swap, percent of each resource's physical sets "
                 "(paper: not given; ours 0)");
  table.add_uint("zorua.o_thresh_step", &m->o_thresh_step_percent, 0, 1000,
                 "Algorithm 1's step, percent of the physical sets (paper: not given; ours 5)");
  table.add_uint("zorua.c_delta_thresh", &m->c_delta_thresh, 0, 1u << 30,
                 "Algorithm 1: cycles by which c_idle and c_mem of an epoch must differ to move the threshold "
                 "(paper: not given; ours 512)");
  table.add_uint("zorua.epoch", &m->epoch_cycles, 1, 1u << 30,
                 "Algorithm 1's epoch in core cycles (paper: not given; ours 2048)");
  table.add_uint("zorua.mapping_table_cycles", &m->mapping_table_cycles, 0, 64,
                 "cycles each register access spends in the mapping table (Sec. 5.1: 2)");
  table.add_bool("zorua.forward_progress", &m->forward_progress,
                 "ours: when no warp can issue, the oldest CTA's warps may use swap beyond the threshold; "
                 "false: the paper's coordinator as written, which can deadlock");
  return s;
}

// Sec. 4.5: the three tables, the coordinator's queues and counters, for
// `logical_warps` warps and `logical_ctas` CTAs on the SM of `spec`.
AddedHardware hardware(const GpuSpec& spec, const Settings& s) {
  const char* sec = "Zorua (Vijaykumar et al. 2016), Sec. 4.5";
  const uint64_t W = s.logical_warps, C = s.logical_ctas;
  const uint64_t reg_sets = spec.sm.registers / (uint64_t{kRegsPerSet} * spec.sm.warp_size);
  const uint64_t sets_per_warp = (kMaxRegsPerThread + kRegsPerSet - 1) / kRegsPerSet;
  const uint64_t spm_sets = spec.sm.scratchpad_bytes / kSmemSetBytes;
  AddedHardware h;
  auto& v = h.structures;
  // An entry: the physical set's index and a valid bit (physical or swap).
  v.push_back({"register_mapping_table", "register_mapping_table", W * sets_per_warp * (ceil_log2(reg_sets) + 1), 1,
               sec});
  v.push_back({"scratchpad_mapping_table", "scratchpad_mapping_table", C * spm_sets * (ceil_log2(spm_sets) + 1), 1,
               sec});
  v.push_back({"warp_slot_mapping_table", "warp_slot_mapping_table", W * (ceil_log2(spec.sm.max_warps) + 1), 1,
               "Zorua Sec. 4.5.2"});
  // Three queues (thread/barrier, scratchpad, register) of logical warp ids;
  // the paper gives no size: one entry per logical warp.
  v.push_back({"coordinator_queue", "coordinator_queue", W * ceil_log2(W), 3, "Zorua Sec. 4.1-4.2 (size assumed)"});
  // Two counters per resource (free, swapped) and a schedulable bit per warp slot (Sec. 4.1 fn. 6).
  const uint64_t counters = 2 * (ceil_log2(reg_sets + 1) + ceil_log2(spm_sets + 1) + ceil_log2(spec.sm.max_warps + 1));
  v.push_back({"coordinator_counters", "coordinator_queue", counters + spec.sm.max_warps, 1,
               "Zorua Sec. 4.5 and fn. 6"});
  return h;
}

StorageFormula storage_formula() {
  return {"Zorua (Vijaykumar et al. 2016), Sec. 4.5",
          "register table W_l x 16 x (ceil(log2(R / 128)) + 1) + scratchpad table C_l x (S / 1 KB) x "
          "(ceil(log2(S / 1 KB)) + 1) + warp-slot table W_l x (ceil(log2 W) + 1) + queues 3 x W_l x "
          "ceil(log2 W_l) + counters, per SM",
          0};
}

void check_slots(const SmSpec& sm, const Settings& s) {
  if (s.logical_warps < sm.max_warps)
    throw InputError("--set zorua.logical_warps=" + std::to_string(s.logical_warps) + ": fewer than the SM's " +
                     std::to_string(sm.max_warps) + " physical warp slots (sm.max_warps); give at least that");
  if (s.logical_ctas < sm.max_ctas)
    throw InputError("--set zorua.logical_ctas=" + std::to_string(s.logical_ctas) + ": fewer than the SM's " +
                     std::to_string(sm.max_ctas) + " CTA slots (sm.max_ctas); give at least that");
  if (sm.scratchpad_bytes / kSmemSetBytes > kMaxSmemSets)
    throw InputError("sm.scratchpad_bytes: Zorua's scratchpad table maps at most " + std::to_string(kMaxSmemSets) +
                     " sets of 1 KB");
}

}  // namespace

void register_mechanisms(MechanismRegistry& registry) {
  MechanismDescriptor d;
  d.name = "zorua";
  d.family = "zorua";
  d.description = "Zorua (Vijaykumar et al. 2016): registers, scratchpad and warp slots virtualized through "
                  "mapping tables and a coordinator, with swap space in global memory";
  d.declare_settings = declare_settings;
  d.occupancy = [](const SmSpec& sm, const KernelResources& k, const std::string& origin,
                   const MechanismSettings& s) {
    check_slots(sm, settings_as<Settings>(s));
    return logical_occupancy(sm, k, origin, settings_as<Settings>(s));
  };
  d.describe_occupancy = [](const MechanismSettings& s, const SmSpec& sm, const KernelResources&, const std::string&,
                            nlohmann::json& occ) {
    occ["logical_warps"] = settings_as<Settings>(s).logical_warps;
    occ["logical_ctas"] = settings_as<Settings>(s).logical_ctas;
    occ["physical_warps"] = sm.max_warps;
  };
  d.slots = [](const SmSpec& sm, const MechanismSettings& s, uint32_t) {
    check_slots(sm, settings_as<Settings>(s));
    return SmSlots{settings_as<Settings>(s).logical_warps, settings_as<Settings>(s).logical_ctas};
  };
  d.make = [](const SmSpec& sm, const KernelResources& k, const std::string& origin, const MechanismSettings& s,
              uint32_t, std::shared_ptr<KernelSharedState>) {
    check_slots(sm, settings_as<Settings>(s));
    return make(sm, k, origin, settings_as<Settings>(s));
  };
  d.make_modules = [](const SmSpec&, const MechanismSettings&, uint32_t sm_id) {
    std::vector<std::unique_ptr<MechanismStructureModule>> m;
    m.push_back(std::make_unique<CoordinatorModule>("coordinator", sm_id));
    m.push_back(std::make_unique<MappingTableModule>("register_mapping_table", sm_id, &ZoruaSm::register_table));
    m.push_back(std::make_unique<MappingTableModule>("scratchpad_mapping_table", sm_id, &ZoruaSm::scratchpad_table));
    m.push_back(std::make_unique<MappingTableModule>("warp_slot_mapping_table", sm_id, &ZoruaSm::warp_slot_table));
    return m;
  };
  d.hardware = [](const GpuSpec& spec, const MechanismSettings& s) { return hardware(spec, settings_as<Settings>(s)); };
  d.storage_formula = [](const GpuSpec&) { return storage_formula(); };
  registry.add(std::move(d));
}

}  // namespace smshare::zorua
