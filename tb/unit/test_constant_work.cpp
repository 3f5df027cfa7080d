// --set frontend.constant_work=true (Zorua Sec. 5.2): with --threads-per-cta
// the grid is scaled so its total threads stay the workload's own, for
// profiles and traces alike; with --ctas, or without --threads-per-cta, an
// InputError naming what to fix.
#include <gtest/gtest.h>

#include <string>

#include "hw/frontend/kernel.hpp"
#include "hw/frontend/kernel_profile.hpp"
#include "hw/frontend/profile_kernel.hpp"
#include "hw/frontend/trace_kernel.hpp"
#include "tb/common/input_error_of.hpp"

namespace smshare {
namespace {

using tb::input_error_of;

ResourceOverrides constant_work(int64_t threads) {
  ResourceOverrides o;
  o.constant_work = true;
  o.threads_per_cta = threads;
  return o;
}

TEST(ConstantWork, GridIsTheCeilingOfTheOwnThreadsOverTheNewCtaSize) {
  KernelResources own;
  own.grid_ctas = 225;
  own.threads_per_cta = 256;
  EXPECT_EQ(constant_work_grid(own, constant_work(128), "k"), 450u);  // 57600 threads in CTAs of 128
  EXPECT_EQ(constant_work_grid(own, constant_work(512), "k"), 113u);  // 57600 / 512 = 112.5: rounded up
  EXPECT_EQ(constant_work_grid(own, constant_work(256), "k"), 225u);
  own.grid_ctas = (1u << 31) - 1;
  own.threads_per_cta = 2048;
  const std::string big = input_error_of([&] { constant_work_grid(own, constant_work(1), "k"); });
  EXPECT_NE(big.find("frontend.constant_work"), std::string::npos) << big;
  EXPECT_NE(big.find("2^31 - 1"), std::string::npos) << big;
}

TEST(ConstantWork, ProfileGridDoublesWhenItsCtasHalve) {
  const KernelProfile hotspot = load_kernel_profile("hotspot");
  ASSERT_EQ(hotspot.resources.threads_per_cta, 256u);
  auto k = make_profile_kernel(hotspot, constant_work(128), {});
  EXPECT_EQ(k->resources().threads_per_cta, 128u);
  EXPECT_EQ(k->resources().grid_ctas, 2 * hotspot.resources.grid_ctas);
  // The same work: as many warps, each streaming the same instructions.
  auto own = make_profile_kernel(hotspot, {}, {});
  EXPECT_EQ(*k->total_warp_instructions(), *own->total_warp_instructions());
  // Without the setting --threads-per-cta keeps the grid.
  ResourceOverrides plain;
  plain.threads_per_cta = 128;
  EXPECT_EQ(make_profile_kernel(hotspot, plain, {})->resources().grid_ctas, hotspot.resources.grid_ctas);
}

TEST(ConstantWork, ErrorsNameTheSettingAndWhatItNeeds) {
  const KernelProfile hotspot = load_kernel_profile("hotspot");
  ResourceOverrides with_ctas = constant_work(128);
  with_ctas.grid_ctas = 10;
  const std::string both = input_error_of([&] { make_profile_kernel(hotspot, with_ctas, {}); });
  EXPECT_NE(both.find("hotspot.yaml"), std::string::npos) << both;
  EXPECT_NE(both.find("frontend.constant_work"), std::string::npos) << both;
  EXPECT_NE(both.find("--ctas 10"), std::string::npos) << both;

  const std::string alone = input_error_of([&] { make_profile_kernel(hotspot, constant_work(-1), {}); });
  EXPECT_NE(alone.find("frontend.constant_work"), std::string::npos) << alone;
  EXPECT_NE(alone.find("needs --threads-per-cta"), std::string::npos) << alone;
}

const std::string kHandwritten = std::string(SMSHARE_SOURCE_DIR) + "/tb/traces/handwritten/kernelslist.g";

TEST(ConstantWork, TracesScaleTheirGridTheSameWay) {
  // The handwritten trace: 1 CTA of 64 threads.
  auto halved = load_trace_kernels(kHandwritten, constant_work(32), {});
  EXPECT_EQ(halved[0]->resources().grid_ctas, 2u);
  EXPECT_EQ(halved[0]->resources().threads_per_cta, 32u);
  auto larger = load_trace_kernels(kHandwritten, constant_work(48), {});
  EXPECT_EQ(larger[0]->resources().grid_ctas, 2u);  // ceil(64 / 48)
  ResourceOverrides with_ctas = constant_work(32);
  with_ctas.grid_ctas = 3;
  const std::string both = input_error_of([&] { load_trace_kernels(kHandwritten, with_ctas, {}); });
  EXPECT_NE(both.find("kernel-1.traceg"), std::string::npos) << both;
  EXPECT_NE(both.find("--ctas 3"), std::string::npos) << both;
  const std::string alone = input_error_of([&] { load_trace_kernels(kHandwritten, constant_work(-1), {}); });
  EXPECT_NE(alone.find("needs --threads-per-cta"), std::string::npos) << alone;
}

}  // namespace
}  // namespace smshare
