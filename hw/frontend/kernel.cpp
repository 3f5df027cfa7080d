#include "hw/frontend/kernel.hpp"

#include "hw/common/error.hpp"

namespace smshare {

uint32_t constant_work_grid(const KernelResources& own, const ResourceOverrides& overrides, const std::string& origin) {
  constexpr const char* kKey = "--set frontend.constant_work=true";
  if (overrides.grid_ctas >= 0)
    throw InputError(origin + ": " + kKey + " and --ctas " + std::to_string(overrides.grid_ctas) +
                     ": constant work derives the grid from --threads-per-cta; give one of them");
  if (overrides.threads_per_cta < 1)
    throw InputError(origin + ": " + kKey + ": needs --threads-per-cta N (N >= 1): it scales the grid so the " +
                     "grid's total threads stay the workload's own when the threads per CTA change");
  const uint64_t own_threads = uint64_t{own.grid_ctas} * own.threads_per_cta;
  const uint64_t per_cta = static_cast<uint64_t>(overrides.threads_per_cta);
  const uint64_t grid = (own_threads + per_cta - 1) / per_cta;
  constexpr uint64_t kMaxGrid = (uint64_t{1} << 31) - 1;
  if (grid > kMaxGrid)
    throw InputError(origin + ": " + kKey + " with --threads-per-cta " + std::to_string(per_cta) + ": the grid of " +
                     std::to_string(own_threads) + " threads would need " + std::to_string(grid) +
                     " CTAs; at most 2^31 - 1 are supported");
  return static_cast<uint32_t>(grid);
}

}  // namespace smshare
