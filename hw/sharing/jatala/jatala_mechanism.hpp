// Jatala et al. 2016 as an smshare mechanism: "regshare" (register sharing,
// Sec. III-A) and "spmshare" (scratchpad sharing, Sec. III-B), built from the
// plain blocks of this folder (Eqs. 1-4, pair table, lock arrays, dynamic
// warp execution). See docs/architecture.md for how it plugs in.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "hw/sm/mechanism.hpp"

namespace smshare::jatala {

enum class Resource { Registers, Scratchpad };

// The mechanism names this folder implements (regshare, spmshare).
inline bool is_jatala(const std::string& mechanism) { return mechanism == "regshare" || mechanism == "spmshare"; }

// Resident CTAs (Sec. III-C) without simulating.
Occupancy sharing_occupancy(Resource r, const SmSpec& sm, const KernelResources& k, const std::string& origin,
                            uint32_t sharing_percent);

std::shared_ptr<KernelSharedState> make_shared_state();

Mechanism make(Resource r, const SmSpec& sm, const KernelResources& k, const std::string& origin,
               const MechanismOptions& options, uint32_t sm_id, std::shared_ptr<KernelSharedState> shared);

std::vector<std::string> probe_names(const SmSpec& sm);

}  // namespace smshare::jatala
