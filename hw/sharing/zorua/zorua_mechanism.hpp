// Zorua as an smshare mechanism: the factory of the interface objects (thin
// views on the SM's ZoruaSm) and the way back from an instance to its state.
#pragma once

#include <string>

#include "hw/sharing/zorua/zorua_sm.hpp"

namespace smshare::zorua {

Mechanism make(const SmSpec& sm, const KernelResources& k, const std::string& origin, const Settings& s);
// The state behind a mechanism zorua::make built; null for another mechanism.
const ZoruaSm* zorua_sm_of(const Mechanism& m);

}  // namespace smshare::zorua
