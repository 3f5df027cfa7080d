// Kernel profiles: every shipped profile loads and agrees with the occupancy
// its paper prints; bad input is rejected with the file and key named.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <map>
#include <optional>
#include <string>

#include "hw/common/error.hpp"
#include "tb/common/profile_test_support.hpp"
#include "hw/common/gpu_config.hpp"
#include "hw/frontend/kernel_profile.hpp"
#include "hw/frontend/profile_kernel.hpp"

namespace smshare {
namespace {


// The two GPUs the papers print occupancies for (Jatala Table I; EXPARS
// Table 2), with GPGPU-Sim's Fermi allocation granularities. Kept here, not
// read from configs/gpu, so the profiles are checked against the papers'
// numbers even before (or whatever) the GPU configs say.
struct PaperGpu {
  uint32_t registers, smem_bytes, max_threads, max_ctas, max_warps;
};
const PaperGpu kJatalaFermi{32768, 16 * 1024, 1536, 8, 48};
const PaperGpu kFermiGtx480{32768, 48 * 1024, 1536, 8, 48};

struct Limits {
  uint32_t registers, scratchpad, threads, cta_slots, warp_slots;
  uint32_t ctas() const { return std::min({registers, scratchpad, threads, cta_slots, warp_slots}); }
};

Limits baseline_limits(const PaperGpu& g, const KernelResources& k) {
  const uint32_t warps = k.warps_per_cta();
  const uint32_t regs_thread = (k.regs_per_thread + 3) / 4 * 4;
  const uint32_t regs_warp = (regs_thread * kWarpLanes + 63) / 64 * 64;
  const uint32_t smem = (k.smem_bytes_per_cta + 127) / 128 * 128;
  Limits l;
  l.registers = g.registers / (regs_warp * warps);
  l.scratchpad = smem ? g.smem_bytes / smem : 1000;
  l.threads = g.max_threads / (warps * kWarpLanes);
  l.cta_slots = g.max_ctas;
  l.warp_slots = g.max_warps / warps;
  return l;
}

uint32_t limit_named(const Limits& l, const std::string& name) {
  if (name == "registers") return l.registers;
  if (name == "scratchpad") return l.scratchpad;
  if (name == "threads") return l.threads;
  if (name == "cta_slots") return l.cta_slots;
  return l.warp_slots;
}

TEST(FrontendProfiles, EveryShippedProfileLoadsAndGenerates) {
  const auto names = list_config_names("kernels");
  ASSERT_GE(names.size(), 40u) << "configs/kernels should hold every kernel of the papers' tables";
  for (const auto& name : names) {
    SCOPED_TRACE(name);
    KernelProfile p;
    ASSERT_NO_THROW(p = load_kernel_profile(name));
    EXPECT_EQ(p.name, name) << "name should match the file stem";
    EXPECT_FALSE(p.description.empty());
    auto k = make_profile_kernel(p, {}, {});
    const auto& res = k->resources();
    auto w = k->warp_program(res.grid_ctas - 1, res.warps_per_cta() - 1);
    WarpInstruction in;
    for (int i = 0; i < 600 && w->next(in); ++i) {
      for (unsigned s = 0; s < in.num_src; ++s) ASSERT_LT(in.src[s], res.regs_per_thread);
      for (unsigned d = 0; d < in.num_dst; ++d) ASSERT_LT(in.dst[d], res.regs_per_thread);
      for (unsigned l = 0; l < kWarpLanes; ++l) {
        if (!(in.active_mask >> l & 1)) continue;
        if (is_global_memory(in.op)) {
          ASSERT_LT(in.lane_address(l), kGlobalLimit);
        }
        if (is_shared_memory(in.op)) {
          ASSERT_LT(in.lane_address(l) + in.access_bytes, res.smem_bytes_per_cta + 1u);
        }
      }
    }
  }
}

TEST(FrontendProfiles, TotalWarpInstructionsIsWhatTheGridStreams) {
  KernelProfile p = load_kernel_profile("streaming");
  ResourceOverrides o;
  o.grid_ctas = 3;
  o.threads_per_cta = 100;  // 4 warps, the last one partial
  auto k = make_profile_kernel(p, o, {});
  uint64_t streamed = 0;
  WarpInstruction in;
  for (uint32_t c = 0; c < 3; ++c)
    for (uint32_t w = 0; w < 4; ++w)
      for (auto program = k->warp_program(c, w); program->next(in);) ++streamed;
  EXPECT_EQ(streamed, 3u * 4 * p.instructions_per_warp);
  EXPECT_EQ(k->total_warp_instructions(), std::optional<uint64_t>(streamed));
}

TEST(FrontendProfiles, PrintedOccupancyFollowsFromPrintedResources) {
  unsigned checked = 0;
  for (const auto& name : list_config_names("kernels")) {
    SCOPED_TRACE(name);
    const KernelProfile p = load_kernel_profile(name);
    for (const auto& [gpu, ctas] : p.paper.ctas_per_sm) {
      const PaperGpu& g = gpu == "jatala-fermi" ? kJatalaFermi : kFermiGtx480;
      const Limits l = baseline_limits(g, p.resources);
      EXPECT_EQ(l.ctas(), ctas) << "on " << gpu;
      if (!p.paper.limited_by.empty() && gpu == "jatala-fermi") {
        EXPECT_EQ(limit_named(l, p.paper.limited_by), ctas) << "limit named by paper.limited_by on " << gpu;
      }
      ++checked;
    }
  }
  EXPECT_GE(checked, 33u);  // 15 Jatala Table II/III, 4 Table IV, 14 EXPARS Table 3
}

// Jatala Tables V and VII print the baseline (0% sharing) IPC of every Set-1
// and Set-2 kernel; each profile records it under paper.ipc (the CLI test
// family paper_ipc_* checks the model against it).
TEST(FrontendProfiles, JatalaSetOneAndTwoCarryThePrintedIpc) {
  const std::map<std::string, double> printed = {
      {"backprop", 389.9}, {"btree", 318.5}, {"hotspot", 489.5}, {"lib", 218.0},   {"mum", 190.5},
      {"mri-q", 303.7},    {"sgemm", 490.6}, {"stencil", 448.2}, {"conv1", 280.33}, {"conv2", 119.29},
      {"lavamd", 452.29},  {"nw1", 39.96},   {"nw2", 41.93},     {"srad1", 188.13}, {"srad2", 63.48}};
  for (const auto& [name, ipc] : printed) {
    SCOPED_TRACE(name);
    const KernelProfile p = load_kernel_profile(name);
    ASSERT_EQ(p.paper.ipc.count("jatala-fermi"), 1u);
    EXPECT_DOUBLE_EQ(p.paper.ipc.at("jatala-fermi"), ipc);
  }
}

TEST(FrontendProfiles, ZoruaProfilesCarryTheirRanges) {
  unsigned with_ranges = 0;
  for (const auto& name : list_config_names("kernels")) {
    const KernelProfile p = load_kernel_profile(name);
    if (p.paper.ranges.empty()) continue;
    ++with_ranges;
    EXPECT_NE(p.paper.source.find("Zorua"), std::string::npos) << name;
  }
  EXPECT_EQ(with_ranges, 8u);
}

// ---- bad input -------------------------------------------------------------

class FrontendBadProfile : public tb::ProfileFileTest {
 protected:
  static std::string good() {
    return "name: t\n"
           "bound: compute\n"
           "grid_ctas: 4\n"
           "threads_per_cta: 64\n"
           "regs_per_thread: 16\n"
           "smem_bytes_per_cta: 1024\n"
           "instructions_per_warp: 100\n"
           "mix: {int_alu: 0.5, fp_alu: 0.3, global_load: 0.1, shared_load: 0.1}\n"
           "registers: {hot_count: 4, first_use_order: shuffled}\n"
           "paper: {source: test}\n";
  }
};

#define EXPECT_NAMES(msg, file_part, key)                       \
  do {                                                          \
    const std::string m_ = (msg);                               \
    EXPECT_NE(m_.find(file_part), std::string::npos) << m_;     \
    EXPECT_NE(m_.find(key), std::string::npos) << m_;           \
  } while (0)

TEST_F(FrontendBadProfile, GoodProfileLoads) { EXPECT_EQ(error_of(good()), ""); }

TEST_F(FrontendBadProfile, UnknownKeyNamesNearestKeys) {
  const std::string m = error_of(good() + "regs_per_thraed: 3\n");
  EXPECT_NAMES(m, "k.yaml", "'regs_per_thraed'");
  EXPECT_NE(m.find("regs_per_thread"), std::string::npos) << m;
  const std::string nested = error_of(replace(good(), "hot_count", "hot_cuont"));
  EXPECT_NAMES(nested, "k.yaml", "registers.hot_cuont");
  EXPECT_NE(nested.find("registers.hot_count"), std::string::npos) << nested;
  EXPECT_NAMES(error_of(good() + "global: {patern: strided}\n"), "k.yaml", "global.patern");
}

TEST_F(FrontendBadProfile, MissingFile) {
  try {
    load_kernel_profile((dir_ / "absent.yaml").string());
    FAIL() << "no error";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("absent.yaml"), std::string::npos) << e.what();
  }
  try {
    load_kernel_profile("no-such-kernel");
    FAIL() << "no error";
  } catch (const InputError& e) {
    const std::string m = e.what();
    EXPECT_NE(m.find("no-such-kernel"), std::string::npos) << m;
    EXPECT_NE(m.find("hotspot"), std::string::npos) << "should list known kernels: " << m;
  }
}

TEST_F(FrontendBadProfile, MalformedYamlNamesLine) {
  const std::string m = error_of("name: t\nbound: compute\nmix: {int_alu: 1.0\ngrid_ctas: 3\n");
  EXPECT_NAMES(m, "k.yaml", "line");
  EXPECT_NE(m.find("malformed"), std::string::npos) << m;
}

TEST_F(FrontendBadProfile, MixMustSumToOne) {
  const std::string m = error_of(replace(good(), "int_alu: 0.5", "int_alu: 0.4"));
  EXPECT_NAMES(m, "k.yaml", "'mix'");
  EXPECT_NE(m.find("0.9"), std::string::npos) << m;
  EXPECT_EQ(error_of(replace(good(), "int_alu: 0.5", "int_alu: 0.5000000001")), "");  // within 1e-6
}

TEST_F(FrontendBadProfile, RegistersAbove255) {
  const std::string m = error_of(replace(good(), "regs_per_thread: 16", "regs_per_thread: 256"));
  EXPECT_NAMES(m, "k.yaml", "'regs_per_thread'");
  EXPECT_NE(m.find("[1, 255]"), std::string::npos) << m;
}

TEST_F(FrontendBadProfile, OutOfRangeAndBadChoices) {
  struct Case {
    std::string from, to, key, allowed;
  };
  const Case cases[] = {
      {"threads_per_cta: 64", "threads_per_cta: 0", "'threads_per_cta'", "[1, 2048]"},
      {"threads_per_cta: 64", "threads_per_cta: 4096", "'threads_per_cta'", "[1, 2048]"},
      {"bound: compute", "bound: latency", "'bound'", "compute, memory"},
      {"int_alu: 0.5", "int_alu: 1.5", "'mix.int_alu'", "[0, 1]"},
      {"hot_count: 4", "hot_count: 17", "'registers.hot_count'", "regs_per_thread"},
      {"first_use_order: shuffled", "first_use_order: random", "'registers.first_use_order'", "ascending"},
      {"first_use_order: shuffled", "first_use_order: [3, 16]", "'registers.first_use_order'", "below"},
      {"first_use_order: shuffled", "first_use_order: [3, 3]", "'registers.first_use_order'", "twice"},
      {"smem_bytes_per_cta: 1024", "smem_bytes_per_cta: 0", "'mix.shared_load'", "smem_bytes_per_cta"},
      {"grid_ctas: 4", "grid_ctas: -2", "'grid_ctas'", "[1, "},
      {"paper: {source: test}", "paper: {source: test, ctas_per_sm: {gtx9000: 3}}", "paper.ctas_per_sm.gtx9000",
       "fermi-gtx480"},
      {"paper: {source: test}", "paper: {source: test, ipc: {gtx9000: 300}}", "paper.ipc.gtx9000", "jatala-fermi"},
      {"paper: {source: test}", "paper: {source: test, ipc: {jatala-fermi: 0}}", "paper.ipc.jatala-fermi",
       "positive number"},
      {"paper: {source: test}", "paper: {source: test, ipc: {jatala-fermi: fast}}", "paper.ipc.jatala-fermi",
       "positive number"},
      {"paper: {source: test}", "paper: {source: test, ipc: 300}", "paper.ipc", "map"},
      {"paper: {source: test}", "paper: {source: test, ranges: {registers: [20, 30]}}", "'regs_per_thread'",
       "[20, 30]"},
      {"paper: {source: test}", "paper: {source: test, ranges: {warps: [1, 2]}}", "paper.ranges.warps", "threads"},
      {"paper: {source: test}", "paper: {soruce: test}", "paper.soruce", "paper.source"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.to);
    const std::string m = error_of(replace(good(), c.from, c.to));
    EXPECT_NAMES(m, "k.yaml", c.key);
    EXPECT_NE(m.find(c.allowed), std::string::npos) << m;
  }
  EXPECT_NAMES(error_of(good() + "global: {access_bytes: 3}\n"), "k.yaml", "'global.access_bytes'");
  EXPECT_NAMES(error_of(replace(good(), "bound: compute\n", "")), "k.yaml", "'bound'");
}

TEST_F(FrontendBadProfile, OverridesAreValidated) {
  const KernelProfile p = load_kernel_profile(write(good()));
  auto error_of_override = [&](ResourceOverrides o) -> std::string {
    try {
      make_profile_kernel(p, o, {});
    } catch (const InputError& e) {
      return e.what();
    }
    return "";
  };
  ResourceOverrides o;
  o.threads_per_cta = 0;
  EXPECT_NAMES(error_of_override(o), "k.yaml", "'threads_per_cta'");
  o = {};
  o.threads_per_cta = 2049;
  EXPECT_NAMES(error_of_override(o), "k.yaml", "[1, 2048]");
  o = {};
  o.regs_per_thread = 300;
  EXPECT_NAMES(error_of_override(o), "k.yaml", "'regs_per_thread'");
  o = {};
  o.smem_bytes_per_cta = 0;  // the mix has shared loads
  EXPECT_NAMES(error_of_override(o), "k.yaml", "'smem_bytes_per_cta'");
  o = {};
  o.grid_ctas = 0;
  EXPECT_NAMES(error_of_override(o), "k.yaml", "'grid_ctas'");

  o = {};
  o.threads_per_cta = 100;
  o.regs_per_thread = 3;  // below hot_count: the hot set shrinks with it
  o.smem_bytes_per_cta = 256;
  o.grid_ctas = 7;
  auto k = make_profile_kernel(p, o, {});
  EXPECT_EQ(k->resources().threads_per_cta, 100u);
  EXPECT_EQ(k->resources().warps_per_cta(), 4u);
  auto w = k->warp_program(6, 3);
  WarpInstruction in;
  while (w->next(in)) {
    EXPECT_EQ(in.active_mask & ~0xFu, 0u) << "last warp of 100 threads has 4 lanes";
    for (unsigned s = 0; s < in.num_src; ++s) EXPECT_LT(in.src[s], 3);
    if (is_shared_memory(in.op)) {
      for (unsigned l = 0; l < kWarpLanes; ++l) EXPECT_LT(in.lane_address(l), 256u);
    }
  }
  EXPECT_THROW(k->warp_program(7, 0), std::out_of_range);
  EXPECT_THROW(k->warp_program(0, 4), std::out_of_range);
}

}  // namespace
}  // namespace smshare
