#include "hw/power/structure_sizes.hpp"

#include "hw/common/error.hpp"

namespace smshare {

uint32_t ceil_log2(uint64_t n) {
  uint32_t b = 0;
  while ((uint64_t{1} << b) < n) ++b;
  return b;
}

std::vector<std::string> known_mechanisms_for_area() {
  return {"baseline", "regshare", "spmshare", "zorua", "expars", "occ", "bal", "bigsm", "bigsm_occ"};
}

static bool is_cross_sm(const std::string& m) { return m == "occ" || m == "bal" || m == "bigsm" || m == "bigsm_occ"; }

static void check_mechanism(const std::string& mechanism) {
  for (const auto& m : known_mechanisms_for_area())
    if (m == mechanism) return;
  throw input_error("--mechanism", "mechanism",
                    "unknown '" + mechanism + "' (allowed: " + join(known_mechanisms_for_area()) + ")");
}

std::vector<SizedStructure> added_structures(const GpuSpec& spec, const std::string& mechanism,
                                             const MechanismParams& p) {
  check_mechanism(mechanism);
  const uint64_t W = spec.sm.max_warps, T = spec.sm.max_ctas;
  std::vector<SizedStructure> v;
  if (mechanism == "regshare" || mechanism == "spmshare") {
    const char* sec = "Jatala et al. 2016, Sec. V";
    // (1) sharing-mode bit per SM, (2) partner id per thread block: 1 + T*ceil(log2(T+1)).
    v.push_back({"partner_id_table", "partner_id_table", 1 + T * ceil_log2(T + 1), 1, sec});
    if (mechanism == "regshare") {
      // owner bit + sharing-mode bit per warp; a lock per pair of warps.
      v.push_back({"owner_bits", "owner_bits", 2 * W, 1, sec});
      v.push_back({"lock_array_register", "lock_array_register", (W / 2) * ceil_log2(W), 1, sec});
    } else {
      v.push_back({"owner_bits", "owner_bits", W, 1, sec});
      v.push_back({"lock_array_scratchpad", "lock_array_scratchpad", (T / 2) * ceil_log2(T), 1, sec});
    }
  } else if (mechanism == "zorua") {
    const char* sec = "Zorua (Vijaykumar et al. 2016), Sec. 4.5";
    const uint64_t reg_sets = spec.sm.registers / (uint64_t{p.zorua_regs_per_set} * spec.sm.warp_size);
    const uint64_t sets_per_warp = (p.max_regs_per_thread + p.zorua_regs_per_set - 1) / p.zorua_regs_per_set;
    const uint64_t spm_sets = spec.sm.scratchpad_bytes / p.zorua_spm_set_bytes;
    v.push_back({"register_mapping_table", "register_mapping_table",
                 p.zorua_logical_warps * sets_per_warp * (ceil_log2(reg_sets) + 1), 1, sec});
    v.push_back({"scratchpad_mapping_table", "scratchpad_mapping_table",
                 p.zorua_logical_ctas * spm_sets * (ceil_log2(spm_sets) + 1), 1, sec});
    v.push_back({"warp_slot_mapping_table", "warp_slot_mapping_table",
                 p.zorua_logical_warps * (ceil_log2(W) + 1), 1, sec});
    // Three queues (thread/barrier, scratchpad, register) of logical warp ids;
    // size not given in the paper: one entry per logical warp.
    v.push_back({"coordinator_queue", "coordinator_queue",
                 p.zorua_logical_warps * ceil_log2(p.zorua_logical_warps), 3, "Zorua Sec. 4.1-4.2 (size assumed)"});
    // Two counters per resource (free, swapped) and a schedulable bit per warp slot (Sec. 4.1 fn. 6).
    const uint64_t counters = 2 * (ceil_log2(reg_sets + 1) + ceil_log2(spm_sets + 1) + ceil_log2(W + 1));
    v.push_back({"coordinator_counters", "coordinator_queue", counters + W, 1, "Zorua Sec. 4.5 and fn. 6"});
  } else if (mechanism == "expars") {
    const char* sec = "EXPARS (Yu et al. 2018), Sec. 3.3.7";
    const uint64_t line_bits = uint64_t{spec.sm.warp_size} * 32;
    const uint64_t lines = uint64_t{p.expars_oc_bytes} * 8 / line_bits;
    const uint64_t sets = lines / p.expars_oc_ways;
    v.push_back({"operand_cache_bank", "operand_cache_bank", uint64_t{p.expars_oc_bytes} * 8 / p.expars_oc_banks,
                 p.expars_oc_banks, sec});
    // Tag: warp id, the Reg# bits above the bank and set bits, valid, dirty (10 bits on Fermi).
    const uint32_t reg_bits = ceil_log2(p.max_regs_per_thread + 1);
    const uint32_t tag_bits = ceil_log2(W) + (reg_bits - ceil_log2(p.expars_oc_banks) - ceil_log2(sets)) + 2;
    v.push_back({"operand_cache_tags", "operand_cache_tags", lines * tag_bits, 1, sec});
    // SBR table (one base address per CTA slot) + Start_CTA, Start_Reg, Max_Reg, Warps_Per_CTA.
    const uint64_t rat = T * ceil_log2(spec.sm.scratchpad_bytes) + ceil_log2(T) + 2 * reg_bits + ceil_log2(W + 1);
    v.push_back({"register_allocation_table", "register_allocation_table", rat, 1, "EXPARS Sec. 3.3.3 and 3.3.7"});
    v.push_back({"prefetch_bitvector_table", "prefetch_bitvector_table", W * p.max_regs_per_thread, 1,
                 "EXPARS Sec. 3.3.4 and 3.3.7"});
    v.push_back({"ltlws_counters", "ltlws_counters", W * p.expars_counter_bits + ceil_log2(W + 1), 1, sec});
  } else if (is_cross_sm(mechanism)) {
    v.push_back({"boundary_buffer", "boundary_buffer",
                 uint64_t{p.boundary_buffer_entries} * spec.sm.warp_size * 32, 1,
                 "Dhar & Chen, Sec. V-A and VI-A (size assumed)"});
  }
  return v;
}

std::vector<PaperCost> paper_costs(const std::string& mechanism) {
  check_mechanism(mechanism);
  if (!is_cross_sm(mechanism)) return {};
  // Dhar & Chen Sec. VI-A: wiring 4.71 mm^2 per pair of SMs (no overlap with
  // logic); issue-unit pipelining 0.064 "um^2" per SM (Design Compiler, 45 nm;
  // the unit must be mm^2: 0.064 um^2 is smaller than one transistor).
  return {{"cross_sm_wiring", 4.71 / 2, "Dhar & Chen Sec. VI-A: 4.71 mm^2 per SM pair (CACTI wire model)"},
          {"issue_pipelining_logic", 0.064, "Dhar & Chen Sec. VI-A: 0.064 mm^2 per SM (synthesized, 45 nm)"}};
}

std::vector<SizedStructure> baseline_structures(const GpuSpec& spec) {
  const char* src = "GpuSpec (Fermi GTX 480: GPGPU-Sim config, papers' Table 1/2)";
  return {
      {"register_file_bank", "register_file_bank", uint64_t{spec.sm.registers} * 32 / spec.sm.register_banks,
       spec.sm.register_banks, src},
      {"scratchpad_bank", "scratchpad_bank", uint64_t{spec.sm.scratchpad_bytes} * 8 / spec.sm.scratchpad_banks,
       spec.sm.scratchpad_banks, src},
      {"l1d", "l1d", uint64_t{spec.l1.size_bytes} * 8, 1, src},
      {"l2_slice", "l2_slice", uint64_t{spec.l2.size_bytes} * 8 / spec.dram.channels, 0, src},
  };
}

uint64_t structure_bits(const GpuSpec& spec, const std::string& mechanism, const std::string& structure,
                        const MechanismParams& p) {
  for (const auto& s : baseline_structures(spec))
    if (s.name == structure) return s.bits;
  for (const auto& s : added_structures(spec, mechanism, p))
    if (s.name == structure) return s.bits;
  return 0;
}

}  // namespace smshare
