// The one list of mechanisms. A mechanism lives in its paper's folder and
// joins the model by one line in register_all_mechanisms() (plus its
// declaration here); the order below is the order of `smshare list
// mechanisms` and of the names in errors. An explicit list rather than static
// self-registration objects: the linker drops an object file of a static
// library that nothing references, and its registration with it.
#include "hw/sharing/registry.hpp"

namespace smshare {

void register_baseline(MechanismRegistry& registry);  // baseline_registration.cpp
namespace jatala {
void register_mechanisms(MechanismRegistry& registry);  // regshare, spmshare
}
namespace zorua {
void register_mechanisms(MechanismRegistry& registry);  // zorua
}
namespace expars {
void register_mechanisms(MechanismRegistry& registry);  // expars
}
namespace crosssm {
void register_mechanisms(MechanismRegistry& registry);  // occ, bal, bigsm, bigsm_occ
}

void register_all_mechanisms(MechanismRegistry& registry) {
  register_baseline(registry);
  jatala::register_mechanisms(registry);
  zorua::register_mechanisms(registry);
  expars::register_mechanisms(registry);
  crosssm::register_mechanisms(registry);
}

}  // namespace smshare
