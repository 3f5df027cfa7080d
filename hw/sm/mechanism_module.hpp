// A structure a mechanism adds to the SM (Jatala's lock arrays and pair
// table, EXPARS's coordinator, ...) as a module under the SM's scope:
// gpu.smN.lock_array.
//
// The scheme (docs/architecture.md, "Mechanism modules"): a run has one
// mechanism, known before elaboration, so the SM creates its modules while
// the SM module itself is being constructed (SmModule's constructor calls
// the factory the GPU hands it, which the mechanism's registry entry
// supplies). The mechanism's plain-C++ state, though, is built per kernel
// launch (Mechanism, mechanism.hpp): at each launch SmModule::begin_kernel
// binds every mechanism module under it to the new instance. A module's
// probes are its own members, computed in update_probes() from the bound
// state, so their addresses never change; its counters run since
// elaboration, over every kernel of the stream.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>

#include "hw/common/structure_module.hpp"
#include "hw/sm/mechanism.hpp"

namespace smshare {

class MechanismStructureModule : public StructureModule {
 public:
  // At a kernel's launch, before the SM replaces its mechanism instance
  // (which destroys the old one): the counters of the instance bound so far
  // join the module's totals, and the module reads that instance no more.
  void retire() {
    if (bound_) earlier_ = sum(earlier_, instance_counters());
    bound_ = false;
  }
  // Then, once the SM holds the kernel's instance `m` (alive until the next
  // retire(), or the end of the run).
  void bind(const Mechanism& m) {
    attach(m);
    bound_ = true;
  }

  // The counters of every instance bound so far, summed.
  // (Before the first bind: the instance counters' names, all 0.)
  StructureCounters counters() const final {
    if (bound_) return sum(earlier_, instance_counters());
    return earlier_.empty() ? instance_counters() : earlier_;
  }

 protected:
  using StructureModule::StructureModule;

  // Points the module at the structure's state in `m` (an instance of the
  // module's own mechanism) and restarts its "this cycle" probes.
  virtual void attach(const Mechanism& m) = 0;
  // The counters of the instance attached (all 0 before the first), always
  // the same names in the same order.
  virtual StructureCounters instance_counters() const = 0;

  // For attach(): `state`, the structure's state in the bound instance as
  // its mechanism's accessor found it (jatala_sm_of, ...). Null means the
  // module was bound to an instance of another mechanism (`expected` names
  // the one it needs): a model error.
  template <class State>
  const State* require_state(const State* state, const char* expected) const {
    if (!state) throw std::logic_error(std::string(name()) + ": bound to a mechanism that is not " + expected);
    return state;
  }

 private:
  static StructureCounters sum(const StructureCounters& a, StructureCounters b) {
    for (size_t i = 0; i < a.size() && i < b.size(); ++i) b[i].second += a[i].second;
    return b;
  }

  StructureCounters earlier_;  // of the instances retired
  bool bound_ = false;         // an instance is attached and alive
};

// A module whose structure lives in its mechanism's per-SM state `State`,
// which `StateOf` finds in each instance bound (null for an instance of
// another mechanism: a model error naming `mechanism`). Derived modules read
// `state_` (null before the first bind) and restart their "this cycle"
// probes in restart().
template <class State, const State* (*StateOf)(const Mechanism&)>
class MechanismStateModule : public MechanismStructureModule {
 protected:
  MechanismStateModule(sc_core::sc_module_name name, const char* kind, const char* plain_class, uint32_t sm,
                       const char* mechanism)
      : MechanismStructureModule(name, kind, plain_class, sm), mechanism_(mechanism) {}

  void attach(const Mechanism& m) final {
    state_ = require_state(StateOf(m), mechanism_);
    restart();
  }
  virtual void restart() {}

  const State* state_ = nullptr;

 private:
  const char* mechanism_;  // named in the error for a wrong instance
};

}  // namespace smshare
