// Jatala et al. 2016 as an smshare mechanism: "regshare" (register sharing,
// Sec. III-A) and "spmshare" (scratchpad sharing, Sec. III-B), built from the
// plain blocks of this folder (Eqs. 1-4, pair table, lock arrays, dynamic
// warp execution). See docs/architecture.md for how it plugs in.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "hw/sharing/registry.hpp"
#include "hw/sm/mechanism.hpp"

namespace smshare::jatala {

enum class Resource { Registers, Scratchpad };

// The `jatala.*` settings of both mechanisms (jatala_registration.cpp declares
// the keys): --set jatala.<key>=<value>, and --sharing P for jatala.sharing.
struct Settings final : MechanismSettings {
  uint32_t sharing_percent = 90;       // P in percent (t = 1 - P); paper default 90 %
  bool dynamic_warp_execution = false; // Sec. IV-C
  bool deadlock_avoidance = true;      // Sec. III-A rule (off only to show the deadlock)
  uint32_t dwe_period_cycles = 1000;
  uint32_t dwe_step_percent = 10;
};

// Resident CTAs (Sec. III-C) without simulating.
Occupancy sharing_occupancy(Resource r, const SmSpec& sm, const KernelResources& k, const std::string& origin,
                            uint32_t sharing_percent);

std::shared_ptr<KernelSharedState> make_shared_state();

Mechanism make(Resource r, const SmSpec& sm, const KernelResources& k, const std::string& origin,
               const Settings& settings, uint32_t sm_id, std::shared_ptr<KernelSharedState> shared);

}  // namespace smshare::jatala
