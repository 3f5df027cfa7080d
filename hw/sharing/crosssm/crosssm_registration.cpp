// Dhar & Chen's cross-SM sharing configurations in the mechanism registry:
// Occ, Bal, BigSM and BigSM_Occ, the `crosssm.*` settings, each SM's
// configuration (configuration.hpp), the per-SM factory
// (crosssm_mechanism.hpp), the boundary buffer and dummy stage modules, and
// the hardware cost (Sec. V-A, VI-A) and power gating (Table III) that
// `smshare area` and the energy model read.
#include <stdexcept>
#include <string>

#include "hw/sharing/crosssm/crosssm_mechanism.hpp"
#include "hw/sharing/crosssm/crosssm_modules.hpp"
#include "hw/sharing/registry.hpp"

namespace smshare::crosssm {
namespace {

// Sec. V-A: boundary buffer entries (our assumption, see the cfg).
constexpr uint32_t kBoundaryBufferEntries = 8;

AddedHardware hardware(const GpuSpec& spec, const Settings& s) {
  const bool wide = shape(s.scheme).wide_warps;
  AddedHardware h;
  h.structures.push_back({"boundary_buffer", "boundary_buffer",
                          uint64_t{kBoundaryBufferEntries} * spec.sm.warp_size * 32, 1,
                          "Dhar & Chen, Sec. V-A and VI-A (size assumed)"});
  // Sec. VI-A: wiring 4.71 mm^2 per pair of SMs (no overlap with logic);
  // issue-unit pipelining 0.064 "um^2" per SM (Design Compiler, 45 nm; the
  // unit must be mm^2: 0.064 um^2 is smaller than one transistor).
  h.paper_costs = {
      {"cross_sm_wiring", 4.71 / 2, "Dhar & Chen Sec. VI-A: 4.71 mm^2 per SM pair (CACTI wire model)", true},
      {"issue_pipelining_logic", 0.064, "Dhar & Chen Sec. VI-A: 0.064 mm^2 per SM (synthesized, 45 nm)", false}};
  // Fig. 4: an inactive SM's front end, LDST unit, undifferentiated logic
  // and texture/constant caches are off; its SIMD units too, unless BigSM
  // merges them; its register file and L1/scratchpad serve its neighbour.
  h.gated_units = {"front_end", "ldst", "undiff", "tex_const_cache"};
  if (!wide) h.gated_units.insert(h.gated_units.begin() + 1, "simd");
  h.gated_sms = layout(s.scheme, spec.num_sms, s.bypass).inactive;
  h.cross_sm_wiring_static = true;  // the wires exist in every configuration, the bypass's too
  return h;
}

SmConfiguration configure_sm(const GpuSpec& gpu, const Settings& s, uint32_t sm_id) {
  if (!s.bypass) check_lendable(s.scheme, gpu.sm, &gpu.l1, "--config " + gpu.name);
  auto sm_settings = std::make_shared<SmSettings>();
  sm_settings->run = s;
  sm_settings->place = place(s.scheme, gpu.num_sms, sm_id, s.bypass);
  sm_settings->base = gpu.sm;
  SmConfiguration c{gpu, physical_slots(gpu.sm), -1, to_string(sm_settings->place.role), sm_settings};
  switch (sm_settings->place.role) {
    case Role::Baseline: break;
    case Role::Inactive: c.slots = {0, 0}; break;
    case Role::Active:
      c.spec = active_spec(s.scheme, gpu, s.boundary_cycles);
      c.slots = {c.spec.sm.max_warps, gpu.sm.max_ctas};  // CTA slots stay the baseline's (Sec. VI-C2)
      c.neighbour = sm_settings->place.neighbour;
      break;
  }
  return c;
}

void describe(const Settings& s, const SmSpec& sm, nlohmann::json& occ) {
  if (s.bypass) {
    occ["crosssm"] = {{"bypass", true}, {"note", "every SM a baseline SM: the occupancy is the baseline's"}};
    return;
  }
  // The active SM's spec, as a run builds it (the L1 as a scale of the config's).
  GpuSpec base;
  base.sm = sm;
  const GpuSpec a = active_spec(s.scheme, base, 0);
  const SchemeShape sh = shape(s.scheme);
  const uint32_t lanes = sm.warp_size * a.sm.sp_units / sm.sp_units;  // BigSM: the merged SIMD units
  occ["crosssm"] = {
      {"group_size", sh.group_size},
      {"actives_per_group", sh.actives_per_group},
      {"per_active_sm",
       {{"warps", a.sm.max_warps},
        {"threads", a.sm.max_threads},
        {"warp_lanes", lanes},
        {"simd_lanes", lanes},
        {"registers", a.sm.registers},
        {"scratchpad_bytes", a.sm.scratchpad_bytes},
        {"l1_scale", static_cast<double>(a.l1.size_bytes) / base.l1.size_bytes},
        {"cta_slots", a.sm.max_ctas}}},
      {"note", "CTAs per SM above are per active SM; inactive SMs hold none, SMs left over from whole groups "
               "are baseline SMs (report: mechanism_stats)"}};
}

MechanismDescriptor descriptor(Scheme scheme, const char* description) {
  MechanismDescriptor d;
  d.name = to_string(scheme);
  d.family = "crosssm";
  d.description = description;
  d.declare_settings = [scheme](ParamTable& table) {
    auto s = std::make_shared<Settings>();
    s->scheme = scheme;
    table.add_bool("crosssm.bypass", &s->bypass,
                   "configuration bits off: every SM a baseline SM with baseline timing (Sec. V-A's bypass)");
    table.add_uint("crosssm.boundary_cycles", &s->boundary_cycles, 0, 8,
                   "cycles a path crossing the SM boundary adds, and the dummy stages add to its local twin "
                   "(Sec. VI-A: 1)");
    return s;
  };
  d.occupancy = [](const SmSpec& sm, const KernelResources& k, const std::string& origin,
                   const MechanismSettings& ms) {
    const Settings& s = settings_as<Settings>(ms);
    if (s.bypass) return baseline_occupancy(sm, k, origin);
    check_lendable(s.scheme, sm, nullptr, "--mechanism " + std::string(to_string(s.scheme)));
    return active_occupancy(s.scheme, sm, k, origin);
  };
  d.describe_occupancy = [](const MechanismSettings& s, const SmSpec& sm, const KernelResources&, const std::string&,
                            nlohmann::json& occ) { describe(settings_as<Settings>(s), sm, occ); };
  d.configure_sm = [](const GpuSpec& gpu, const MechanismSettings& s, uint32_t sm_id) {
    return configure_sm(gpu, settings_as<Settings>(s), sm_id);
  };
  d.make = [](const SmSpec& sm, const KernelResources& k, const std::string& origin, const MechanismSettings& ms,
              uint32_t, std::shared_ptr<KernelSharedState>) {
    const auto* s = dynamic_cast<const SmSettings*>(&ms);
    if (!s) throw std::logic_error("crosssm: an SM's mechanism is made with its configuration's settings "
                                   "(ConfiguredMechanism::configure_sm)");
    return make(sm, k, origin, *s);
  };
  d.make_modules = [](const SmSpec&, const MechanismSettings& ms, uint32_t sm_id) {
    std::vector<std::unique_ptr<MechanismStructureModule>> m;
    const auto* s = dynamic_cast<const SmSettings*>(&ms);
    if (!s || s->place.role != Role::Active) return m;
    m.push_back(std::make_unique<BoundaryBufferModule>("boundary_buffer", sm_id));
    m.push_back(std::make_unique<DummyStageModule>("dummy_stage", sm_id));
    return m;
  };
  d.hardware = [](const GpuSpec& spec, const MechanismSettings& s) { return hardware(spec, settings_as<Settings>(s)); };
  return d;
}

}  // namespace

void register_mechanisms(MechanismRegistry& registry) {
  registry.add(descriptor(Scheme::Occ,
                          "Dhar & Chen, Occ: half the SMs off; each active SM doubles warps, registers, "
                          "scratchpad and L1 with its neighbour's"));
  registry.add(descriptor(Scheme::Bal,
                          "Dhar & Chen, Bal: one SM of each trio off, its resources split over the two active "
                          "SMs (+50%)"));
  registry.add(descriptor(Scheme::BigSm,
                          "Dhar & Chen, BigSM: pairs of SMs with 64-wide warps (two warps fused), merged SIMD "
                          "units, doubled registers, scratchpad and L1"));
  registry.add(descriptor(Scheme::BigSmOcc, "Dhar & Chen, BigSM_Occ: BigSM with twice the resident wide warps"));
}

}  // namespace smshare::crosssm
