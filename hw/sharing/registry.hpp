// The mechanism registry: every resource-sharing mechanism declares itself
// here, once, with everything the rest of the model needs to know about it,
// so the SM (hw/sm), the top (hw/top) and the power model (hw/power) name no
// mechanism. A mechanism lives in its paper's folder (hw/sharing/jatala/,
// expars/, zorua/, crosssm/) and is added to the model by one line in
// all_mechanisms.cpp; docs/architecture.md ("Mechanism registry") walks
// through adding one.
//
// Settings: a mechanism family (the paper: `jatala` for regshare and
// spmshare) owns the keys `<family>.*` of `--set`; its entry declares them on
// a ParamTable (typed, range-checked, unknown keys rejected with the nearest
// key) bound to its own settings object, which its factory reads back.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "hw/common/gpu_config.hpp"
#include "hw/common/params.hpp"
#include "hw/frontend/kernel.hpp"
#include "hw/power/structure_sizes.hpp"
#include "hw/sm/mechanism.hpp"
#include "hw/sm/mechanism_module.hpp"
#include "hw/sm/occupancy.hpp"

namespace smshare {

// A family's parsed settings: each family derives its own (jatala::Settings)
// and reads it back with settings_as<T>().
struct MechanismSettings {
  virtual ~MechanismSettings() = default;
};

// A closed-form storage cost in the style of Jatala Sec. V, for `smshare hw-cost`.
struct StorageFormula {
  std::string source;           // "Jatala et al. 2016, Sec. V"
  std::string formula;          // the bit count as the paper prints it
  uint32_t comparators_per_sm = 0;
};

// SM `sm_id`'s hardware in a run, as the mechanism's configuration bits set
// it at kernel launch (Dhar & Chen Sec. V-B; the same for every kernel of the
// run, fixed before elaboration like the slots).
struct SmConfiguration {
  GpuSpec spec;            // the SM's hardware: its resources and pipeline latencies
  SmSlots slots;           // its warp and CTA slots (0 and 0: an inactive SM the CTA dispatcher skips)
  int32_t neighbour = -1;  // the SM whose register banks its RemoteRegisterFile group reaches; -1: none
  std::string role;        // for the report ("active", "inactive", ...); empty: the GPU's own SM
  // What the SM's make() and make_modules() receive as settings instead of
  // the family's (e.g. the SM's place in its group); null: the family's.
  std::shared_ptr<const MechanismSettings> settings;
};

struct MechanismDescriptor {
  std::string name;         // --mechanism NAME
  std::string family;       // settings prefix (--set <family>.<key>=<value>); empty: no settings
  std::string description;  // one line, for `smshare list mechanisms`

  // Declares the family's keys on `table`, bound to a new settings object
  // holding the defaults, and returns that object. Mechanisms of one family
  // declare the same keys. Empty: no settings.
  std::function<std::shared_ptr<MechanismSettings>(ParamTable& table)> declare_settings;
  // Rejects (InputError) settings that this mechanism would ignore, once
  // every --set of the family is applied; `given` holds the keys the command
  // set. May be empty.
  std::function<void(const MechanismSettings&, const std::vector<std::string>& given)> validate;

  // Resident CTAs per SM without simulating (`smshare occupancy`, the
  // report's occupancy). InputError (naming `origin`) if a CTA never fits.
  std::function<Occupancy(const SmSpec&, const KernelResources&, const std::string& origin,
                          const MechanismSettings&)>
      occupancy;
  // Fields the mechanism adds to the occupancy report of `kernel` (e.g. the
  // sharing fraction, EXPARS's CTA_RF and CTA_Mix). May be empty.
  std::function<void(const MechanismSettings&, const SmSpec&, const KernelResources& kernel,
                     const std::string& origin, nlohmann::json& occupancy)>
      describe_occupancy;

  // The per-SM factory: the four policies and hooks for SM `sm_id` running
  // `kernel`; `shared` is the kernel's GPU-wide state (null when
  // make_kernel_shared_state is empty, or in tests: then each SM has its
  // own). Empty: not simulated, `run` refuses it; registered for its
  // occupancy (when `occupancy` is set: `smshare occupancy` accepts it),
  // area, energy and hw-cost.
  std::function<Mechanism(const SmSpec&, const KernelResources&, const std::string& origin, const MechanismSettings&,
                          uint32_t sm_id, std::shared_ptr<KernelSharedState> shared)>
      make;
  // State one kernel's instances share across SMs, created once per kernel
  // launch. May be empty.
  std::function<std::shared_ptr<KernelSharedState>()> make_kernel_shared_state;
  // The mechanism's structures as SystemC modules (lock arrays, pair table,
  // coordinator, ...) for SM `sm_id`. Called while that SM's module is being
  // constructed, so each module becomes gpu.smN.<its name>; the SM binds
  // them to its new mechanism instance at every kernel launch
  // (hw/sm/mechanism_module.hpp). Their probes are how a waveform shows the
  // mechanism. May be empty (no modules).
  std::function<std::vector<std::unique_ptr<MechanismStructureModule>>(const SmSpec&, const MechanismSettings&,
                                                                          uint32_t sm_id)>
      make_modules;

  // The warp and CTA slots SM `sm_id` holds (mechanism.hpp, SmSlots). Empty:
  // the SM's own (physical_slots).
  std::function<SmSlots(const SmSpec&, const MechanismSettings&, uint32_t sm_id)> slots;

  // SM `sm_id`'s hardware (SmConfiguration). Empty: the GPU's spec with the
  // slots above. A mechanism that sets it gives the slots here (and leaves
  // `slots` empty).
  std::function<SmConfiguration(const GpuSpec&, const MechanismSettings&, uint32_t sm_id)> configure_sm;

  // What it adds to the GPU's area and energy (storage sized from `spec` and
  // the settings, paper costs, gated units, cross-SM wiring). Empty: nothing
  // (baseline).
  std::function<AddedHardware(const GpuSpec&, const MechanismSettings&)> hardware;
  // Its storage formula for `smshare hw-cost`. Empty: hw-cost refuses it.
  std::function<StorageFormula(const GpuSpec&)> storage_formula;

  // The compiler pass the mechanism's paper assumes: kernel profiles number
  // their registers by reference weight (EXPARS Sec. 3.2, most referenced
  // lowest) unless the run chooses a numbering itself
  // (--set frontend.reorder_registers*).
  bool numbers_registers_by_weight = false;

  bool simulated() const { return static_cast<bool>(make); }
  bool has_occupancy() const { return static_cast<bool>(occupancy); }
};

// The mechanism of a run that names none.
inline constexpr const char* kDefaultMechanism = "baseline";

// A mechanism chosen for a run: its name, its --set settings of the family
// ("<family>.<key>=<value>", in order) and --sharing P, the documented
// shorthand for --set <family>.sharing=P (empty: not given).
struct MechanismChoice {
  std::string name = kDefaultMechanism;
  std::vector<std::string> settings;
  std::string sharing;
};

// A chosen mechanism with its validated settings: what the run builds SMs
// from. Cheap to copy.
class ConfiguredMechanism {
 public:
  const MechanismDescriptor& descriptor() const { return *descriptor_; }
  const std::string& name() const { return descriptor_->name; }
  const MechanismSettings& settings() const { return *settings_; }
  // The family's keys with their effective values, sorted (for the report).
  const std::vector<std::pair<std::string, std::string>>& effective() const { return effective_; }

  Occupancy occupancy(const SmSpec& sm, const KernelResources& kernel, const std::string& origin) const;
  // Adds the mechanism's fields for `kernel` to its occupancy report.
  void describe_occupancy(const SmSpec& sm, const KernelResources& kernel, const std::string& origin,
                          nlohmann::json& occupancy) const;
  // InputError unless the mechanism is simulated (`run`) or has an occupancy
  // calculator (`occupancy`): `command` names what refused it.
  void require_simulated(const std::string& command) const;
  void require_occupancy(const std::string& command) const;
  std::shared_ptr<KernelSharedState> make_kernel_shared_state() const;
  // `sm_settings`: the SM's own (SmConfiguration::settings); null: the family's.
  Mechanism make(const SmSpec& sm, const KernelResources& kernel, const std::string& origin, uint32_t sm_id = 0,
                 std::shared_ptr<KernelSharedState> shared = nullptr,
                 const MechanismSettings* sm_settings = nullptr) const;
  // The descriptor's make_modules for SM `sm_id` (none when it is empty);
  // call it while SM `sm_id`'s module is being constructed.
  std::vector<std::unique_ptr<MechanismStructureModule>> make_modules(
      const SmSpec& sm, uint32_t sm_id, const MechanismSettings* sm_settings = nullptr) const;
  // SM `sm_id`'s hardware (the descriptor's configure_sm; else `gpu` with slots()).
  SmConfiguration configure_sm(const GpuSpec& gpu, uint32_t sm_id) const;
  // The descriptor's slots for SM `sm_id` (the SM's own when it is empty);
  // InputError naming the mechanism if it gives an SM no warp slot for a CTA
  // slot or CTA slots without warp slots.
  SmSlots slots(const SmSpec& sm, uint32_t sm_id) const;
  AddedHardware hardware(const GpuSpec& spec) const;

 private:
  friend class MechanismRegistry;
  const MechanismDescriptor* descriptor_ = nullptr;
  std::shared_ptr<const MechanismSettings> settings_;
  std::vector<std::pair<std::string, std::string>> effective_;
  // InputError naming the mechanism unless SM `sm_id`'s slots are both or neither 0.
  void check_slots(const SmSlots& slots, uint32_t sm_id) const;

  std::vector<std::string> simulated_names_;  // for require_simulated's error
  std::vector<std::string> occupancy_names_;  // for require_occupancy's error
};

class MechanismRegistry {
 public:
  // Registers a mechanism. InputError on a duplicate or empty name, a family
  // whose keys fall outside `<family>.`, or a simulated entry without an
  // occupancy calculator.
  void add(MechanismDescriptor d);

  // The entry called `name`; InputError naming --mechanism and listing the
  // registered names otherwise.
  const MechanismDescriptor& at(const std::string& name) const;
  bool contains(const std::string& name) const;
  // Registered names, in registration order.
  std::vector<std::string> names() const;
  std::vector<std::string> simulated_names() const;
  // Names of the mechanisms with an occupancy calculator (every simulated one, and some not yet simulated).
  std::vector<std::string> occupancy_names() const;
  // Names of the mechanisms whose hw-cost formula is declared.
  std::vector<std::string> names_with_storage_formula() const;
  // Is `assignment` ("key=value") a setting of a registered family?
  bool is_mechanism_setting(const std::string& assignment) const;

  // Validates `choice` against its entry: settings of another family are
  // rejected naming that family's mechanisms; the family's ParamTable
  // rejects unknown keys and bad values; --sharing applies to families with
  // a `sharing` key; then the entry's own validate().
  ConfiguredMechanism configure(const MechanismChoice& choice) const;

  // `smshare list mechanisms`: per mechanism, its name, description, whether
  // `run` simulates it (or only `occupancy` computes it), and its keys with
  // their defaults.
  std::string describe() const;

 private:
  std::vector<std::string> family_members(const std::string& family) const;
  std::vector<std::string> families() const;
  // The family's keys (name, default value, documentation), from a fresh table.
  struct Key {
    std::string name, value, doc;
  };
  std::vector<Key> keys(const MechanismDescriptor& d) const;

  std::vector<std::unique_ptr<MechanismDescriptor>> entries_;  // stable addresses: ConfiguredMechanism points in
};

// The process's registry, filled on first use by register_all_mechanisms().
// Tests may add their own mechanisms to it before a run.
MechanismRegistry& mechanism_registry();

// The one list of mechanisms (hw/sharing/all_mechanisms.cpp).
void register_all_mechanisms(MechanismRegistry& registry);

// The family's settings object as `T` (the factory's view of its own settings).
template <typename T>
const T& settings_as(const MechanismSettings& s) {
  return dynamic_cast<const T&>(s);
}

}  // namespace smshare
