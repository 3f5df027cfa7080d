// Baseline occupancy of every shipped profile on the shipped GPU configs
// equals the CTAs/SM the papers print: Jatala Tables VI and VIII (0%
// sharing) on jatala-fermi, EXPARS Table 3 on fermi-gtx480. The expected
// numbers live in each profile's `paper.ctas_per_sm`.
#include <gtest/gtest.h>

#include "hw/common/gpu_config.hpp"
#include "hw/frontend/kernel_profile.hpp"
#include "hw/sm/occupancy.hpp"

namespace smshare {
namespace {

TEST(PaperOccupancy, EveryShippedProfileMatchesThePrintedCtasPerSm) {
  unsigned checked = 0;
  for (const auto& name : list_config_names("kernels")) {
    const KernelProfile p = load_kernel_profile(name);
    for (const auto& [config, expected] : p.paper.ctas_per_sm) {
      const GpuSpec spec = load_gpu_config(config, {});
      const Occupancy occ = baseline_occupancy(spec.sm, p.resources, p.file);
      EXPECT_EQ(occ.ctas_per_sm, expected) << name << " on " << config << " (" << p.paper.source << ")";
      ++checked;
    }
  }
  // Jatala Tables II+III (15 kernels) plus EXPARS Table 3 (14 kernels):
  // all of them carry a printed number.
  EXPECT_GE(checked, 29u);
}

TEST(PaperOccupancy, JatalaRegisterLimitedKernelsAreLimitedByRegisters) {
  const GpuSpec spec = load_gpu_config("jatala-fermi", {});
  for (const char* name : {"backprop", "btree", "hotspot", "lib", "mum", "mri-q", "sgemm", "stencil"}) {
    const KernelProfile p = load_kernel_profile(name);
    EXPECT_EQ(baseline_occupancy(spec.sm, p.resources, p.file).limited_by, OccupancyLimit::Registers) << name;
  }
  for (const char* name : {"conv1", "conv2", "lavamd", "nw1", "nw2", "srad1", "srad2"}) {
    const KernelProfile p = load_kernel_profile(name);
    EXPECT_EQ(baseline_occupancy(spec.sm, p.resources, p.file).limited_by, OccupancyLimit::Scratchpad) << name;
  }
}

}  // namespace
}  // namespace smshare
