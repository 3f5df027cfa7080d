// The Dhar & Chen kernel list (configs/sweeps/crosssm-kernels.txt): every
// entry names a shipped profile whose baseline occupancy on gtx580 is the
// CTAs/SM the list (and docs/kernel-profiles.md) states, whose binding
// resource is the one its label names, and whose `bound` agrees with the
// paper's compute/memory label where the profile was written for the paper.
#include <gtest/gtest.h>

#include <fstream>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "hw/common/gpu_config.hpp"
#include "hw/frontend/kernel_profile.hpp"
#include "hw/sm/occupancy.hpp"

namespace smshare {
namespace {

struct CrossSmKernel {
  std::string paper, profile, label, grid;
  uint32_t ctas = 0;
  bool has(const std::string& l) const { return ("+" + label + "+").find("+" + l + "+") != std::string::npos; }
};

std::vector<CrossSmKernel> read_list() {
  const std::string path = config_root() + "/sweeps/crosssm-kernels.txt";
  std::ifstream in(path);
  EXPECT_TRUE(in.good()) << path;
  std::vector<CrossSmKernel> list;
  for (std::string line; std::getline(in, line);) {
    line = line.substr(0, line.find('#'));
    std::istringstream fields(line);
    CrossSmKernel k;
    if (!(fields >> k.paper)) continue;
    EXPECT_TRUE(fields >> k.profile >> k.label >> k.ctas >> k.grid) << path << ": " << line;
    list.push_back(k);
  }
  return list;
}

TEST(CrossSmKernels, ListedOccupancyAndLabelsFollowFromTheProfiles) {
  const auto list = read_list();
  ASSERT_EQ(list.size(), 15u) << "the paper names 14 kernels, BFSR as both Rodinia BFS kernels";
  const GpuSpec gtx580 = load_gpu_config("gtx580", {});
  const std::set<std::string> labels = {"compute-bound", "memory-bound", "register-constrained", "occupancy-limited"};
  for (const auto& k : list) {
    SCOPED_TRACE(k.paper + " (" + k.profile + ")");
    std::istringstream parts(k.label);
    for (std::string l; std::getline(parts, l, '+');) EXPECT_EQ(labels.count(l), 1u) << "unknown label " << l;
    const KernelProfile p = load_kernel_profile(k.profile);
    const Occupancy occ = baseline_occupancy(gtx580.sm, p.resources, p.file);
    EXPECT_EQ(occ.ctas_per_sm, k.ctas);
    if (k.has("register-constrained")) {
      EXPECT_EQ(occ.limited_by, OccupancyLimit::Registers);
    }
    if (k.has("occupancy-limited")) {
      EXPECT_EQ(occ.by_threads, occ.ctas_per_sm) << "the thread limit should bind";
    }
    if (k.grid != "-") {
      EXPECT_LE(std::stoul(k.grid), p.resources.grid_ctas) << "a sweep's grid is a part of the profile's";
    }
    if (p.paper.source.find("Dhar & Chen") == std::string::npos) continue;  // reused from another paper
    EXPECT_EQ(p.description.rfind("Dhar & Chen: ", 0), 0u) << "the description should start with the paper's label";
    if (k.has("compute-bound") || k.has("register-constrained")) {
      EXPECT_FALSE(p.memory_bound);
    }
    if (k.has("memory-bound")) {
      EXPECT_TRUE(p.memory_bound);
    }
  }
}

// A profile written for the paper that the list forgets would drop out of the
// reproduction silently.
TEST(CrossSmKernels, EveryDharChenProfileIsListed) {
  std::set<std::string> listed;
  for (const auto& k : read_list()) listed.insert(k.profile);
  unsigned written = 0;
  for (const auto& name : list_config_names("kernels")) {
    if (load_kernel_profile(name).paper.source.find("Dhar & Chen") == std::string::npos) continue;
    ++written;
    EXPECT_EQ(listed.count(name), 1u) << name;
  }
  EXPECT_EQ(written, 10u);
}

}  // namespace
}  // namespace smshare
