// EXPARS (Yu et al. 2018) as an smshare mechanism (--mechanism expars): the
// factory of one SM's instance (ExparsSm) and its interface objects.
#pragma once

#include <string>

#include "hw/sharing/expars/expars_sm.hpp"

namespace smshare::expars {

// InputError unless expars.operand_cache_bytes gives whole 128-byte lines in
// each of the SM's register banks and at least one instruction's registers.
void check_operand_cache(const SmSpec& sm, const Settings& s);

Mechanism make(const SmSpec& sm, const KernelResources& k, const std::string& origin, const Settings& settings);

}  // namespace smshare::expars
