// Reports are data: one JSON object per run (docs/user-guide.md lists every
// field). Tables and plots are made from them by scripts.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "hw/common/gpu_config.hpp"
#include "hw/frontend/kernel.hpp"
#include "hw/power/structure_sizes.hpp"
#include "hw/sm/occupancy.hpp"

namespace smshare {

class GpuModule;

struct RunIdentity {
  std::string mechanism;
  std::string scheduler;
  uint64_t seed = 0;
  std::string kernel_file;
  std::string power_node = "40nm";  // CACTI results used for energy
};

nlohmann::json kernel_json(const KernelSource& kernel, const std::string& file);

nlohmann::json occupancy_json(const Occupancy& occ, const GpuSpec& spec, const KernelSource& kernel,
                              const std::string& mechanism);

// `added`: what the run's mechanism adds to the hardware (its energy).
nlohmann::json simulation_report(const GpuModule& gpu, const RunIdentity& id, const AddedHardware& added,
                                 const std::vector<std::pair<std::string, std::string>>& effective,
                                 double host_seconds);

}  // namespace smshare
