#include "hw/sharing/registry.hpp"

#include <algorithm>
#include <sstream>

#include "hw/common/error.hpp"

namespace smshare {
namespace {

std::string family_of(const std::string& key) {
  const size_t dot = key.find('.');
  return dot == std::string::npos ? std::string() : key.substr(0, dot);
}

std::string key_of(const std::string& assignment) { return assignment.substr(0, assignment.find('=')); }

std::string or_list(const std::vector<std::string>& names) {
  if (names.size() < 2) return join(names);
  std::vector<std::string> head(names.begin(), names.end() - 1);
  return join(head) + " or " + names.back();
}

}  // namespace

// --- ConfiguredMechanism

Occupancy ConfiguredMechanism::occupancy(const SmSpec& sm, const KernelResources& kernel,
                                         const std::string& origin) const {
  require_occupancy("occupancy");
  return descriptor_->occupancy(sm, kernel, origin, *settings_);
}

void ConfiguredMechanism::describe_occupancy(const SmSpec& sm, const KernelResources& kernel,
                                             const std::string& origin, nlohmann::json& occupancy) const {
  if (descriptor_->describe_occupancy) descriptor_->describe_occupancy(*settings_, sm, kernel, origin, occupancy);
}

namespace {

// Why `command` refuses `d`: what it is registered for instead, and what the command accepts.
InputError refused(const MechanismDescriptor& d, const std::string& command, const std::vector<std::string>& accepted) {
  std::string uses = d.has_occupancy() ? "smshare occupancy, smshare area" : "smshare area";
  if (d.storage_formula) uses += ", smshare hw-cost";
  const std::string what = d.has_occupancy() ? "its occupancy and hardware cost" : "its hardware cost only";
  return InputError(command + " --mechanism: '" + d.name + "' is registered for " + what + " (" + uses +
                    "; the energy model); it is not simulated yet. Mechanisms " + command +
                    " accepts: " + join(accepted));
}

}  // namespace

void ConfiguredMechanism::require_simulated(const std::string& command) const {
  if (!descriptor_->simulated()) throw refused(*descriptor_, command, simulated_names_);
}

void ConfiguredMechanism::require_occupancy(const std::string& command) const {
  if (!descriptor_->has_occupancy()) throw refused(*descriptor_, command, occupancy_names_);
}

std::shared_ptr<KernelSharedState> ConfiguredMechanism::make_kernel_shared_state() const {
  return descriptor_->make_kernel_shared_state ? descriptor_->make_kernel_shared_state() : nullptr;
}

Mechanism ConfiguredMechanism::make(const SmSpec& sm, const KernelResources& kernel, const std::string& origin,
                                    uint32_t sm_id, std::shared_ptr<KernelSharedState> shared,
                                    const MechanismSettings* sm_settings) const {
  require_simulated("run");
  Mechanism m = descriptor_->make(sm, kernel, origin, sm_settings ? *sm_settings : *settings_, sm_id, std::move(shared));
  m.name = name();
  return m;
}

std::vector<std::unique_ptr<MechanismStructureModule>> ConfiguredMechanism::make_modules(
    const SmSpec& sm, uint32_t sm_id, const MechanismSettings* sm_settings) const {
  if (!descriptor_->make_modules) return {};
  return descriptor_->make_modules(sm, sm_settings ? *sm_settings : *settings_, sm_id);
}

SmConfiguration ConfiguredMechanism::configure_sm(const GpuSpec& gpu, uint32_t sm_id) const {
  if (!descriptor_->configure_sm) return {gpu, slots(gpu.sm, sm_id), -1, {}, nullptr};
  SmConfiguration c = descriptor_->configure_sm(gpu, *settings_, sm_id);
  check_slots(c.slots, sm_id);
  return c;
}

void ConfiguredMechanism::check_slots(const SmSlots& s, uint32_t sm_id) const {
  if ((s.warps == 0) != (s.ctas == 0))
    throw InputError("--mechanism " + name() + ": SM " + std::to_string(sm_id) + " gets " + std::to_string(s.warps) +
                     " warp slots and " + std::to_string(s.ctas) +
                     " CTA slots; an SM holds both or neither (an inactive SM)");
}

SmSlots ConfiguredMechanism::slots(const SmSpec& sm, uint32_t sm_id) const {
  if (!descriptor_->slots) return physical_slots(sm);
  const SmSlots s = descriptor_->slots(sm, *settings_, sm_id);
  check_slots(s, sm_id);
  return s;
}

AddedHardware ConfiguredMechanism::hardware(const GpuSpec& spec) const {
  return descriptor_->hardware ? descriptor_->hardware(spec, *settings_) : AddedHardware{};
}

// --- MechanismRegistry

void MechanismRegistry::add(MechanismDescriptor d) {
  if (d.name.empty()) throw InputError("mechanism registry: an entry has no name");
  if (contains(d.name))
    throw InputError("mechanism registry: '" + d.name + "' is registered twice (registered: " + join(names()) + ")");
  if (d.simulated() && !d.occupancy)
    throw InputError("mechanism registry: '" + d.name + "' has a factory but no occupancy calculator");
  if (d.declare_settings && d.family.empty())
    throw InputError("mechanism registry: '" + d.name + "' declares settings but no family to prefix them");
  // Every key the entry declares must be `<family>.*`: --set routes by prefix.
  for (const Key& k : keys(d))
    if (family_of(k.name) != d.family)
      throw InputError("mechanism registry: '" + d.name + "' declares key '" + k.name + "' outside its family '" +
                       d.family + ".'");
  entries_.push_back(std::make_unique<MechanismDescriptor>(std::move(d)));
}

bool MechanismRegistry::contains(const std::string& name) const {
  return std::any_of(entries_.begin(), entries_.end(), [&](const auto& e) { return e->name == name; });
}

const MechanismDescriptor& MechanismRegistry::at(const std::string& name) const {
  for (const auto& e : entries_)
    if (e->name == name) return *e;
  throw InputError("--mechanism: unknown mechanism '" + name + "' (known: " + join(names()) +
                   "; run simulates: " + join(simulated_names()) + ")");
}

std::vector<std::string> MechanismRegistry::names() const {
  std::vector<std::string> v;
  for (const auto& e : entries_) v.push_back(e->name);
  return v;
}

std::vector<std::string> MechanismRegistry::simulated_names() const {
  std::vector<std::string> v;
  for (const auto& e : entries_)
    if (e->simulated()) v.push_back(e->name);
  return v;
}

std::vector<std::string> MechanismRegistry::occupancy_names() const {
  std::vector<std::string> v;
  for (const auto& e : entries_)
    if (e->has_occupancy()) v.push_back(e->name);
  return v;
}

std::vector<std::string> MechanismRegistry::names_with_storage_formula() const {
  std::vector<std::string> v;
  for (const auto& e : entries_)
    if (e->storage_formula) v.push_back(e->name);
  return v;
}

std::vector<std::string> MechanismRegistry::family_members(const std::string& family) const {
  std::vector<std::string> v;
  for (const auto& e : entries_)
    if (!family.empty() && e->family == family) v.push_back(e->name);
  return v;
}

std::vector<std::string> MechanismRegistry::families() const {
  std::vector<std::string> v;
  for (const auto& e : entries_)
    if (!e->family.empty() && std::find(v.begin(), v.end(), e->family) == v.end()) v.push_back(e->family);
  return v;
}

bool MechanismRegistry::is_mechanism_setting(const std::string& assignment) const {
  return !family_members(family_of(key_of(assignment))).empty();
}

std::vector<MechanismRegistry::Key> MechanismRegistry::keys(const MechanismDescriptor& d) const {
  std::vector<Key> out;
  if (!d.declare_settings) return out;
  ParamTable table;
  auto settings = d.declare_settings(table);  // keeps the table's targets alive while it is read
  const auto values = table.effective();
  const auto docs = table.documentation();
  for (size_t i = 0; i < values.size(); ++i) out.push_back({values[i].first, values[i].second, docs[i].second});
  return out;
}

ConfiguredMechanism MechanismRegistry::configure(const MechanismChoice& choice) const {
  const MechanismDescriptor& d = at(choice.name);
  std::vector<std::string> given;
  for (const auto& a : choice.settings) {
    const std::string key = key_of(a), family = family_of(key);
    if (family != d.family) {
      const auto members = family_members(family);
      if (members.empty())
        throw InputError("--set " + key + ": '" + family + "' is not a mechanism family (families: " +
                         join(families()) + ")");
      throw InputError("--set " + key + ": " + family + ".* settings apply to --mechanism " + or_list(members) +
                       ", not '" + d.name + "'");
    }
    given.push_back(key);
  }

  ConfiguredMechanism c;
  c.descriptor_ = &d;
  c.simulated_names_ = simulated_names();
  c.occupancy_names_ = occupancy_names();
  bool sharing_applied = false;
  if (!d.declare_settings) {
    if (!given.empty())
      throw InputError("--set " + given.front() + ": mechanism '" + d.name + "' has no settings");
    c.settings_ = std::make_shared<MechanismSettings>();
  } else {
    ParamTable table;
    std::shared_ptr<MechanismSettings> settings = d.declare_settings(table);
    table.apply_overrides(choice.settings);
    c.settings_ = settings;
    if (!choice.sharing.empty()) {
      const std::string key = d.family + ".sharing";
      if (table.has(key)) {
        // One flag for one setting: both would leave the user guessing which won.
        if (std::find(given.begin(), given.end(), key) != given.end())
          throw InputError("--sharing " + choice.sharing + " and --set " + key +
                           ": both set the shared fraction; give one (--sharing P is the shorthand for --set " +
                           key + "=P)");
        table.set(key, choice.sharing, "--sharing");
        given.push_back(key);
        sharing_applied = true;
      }
    }
    c.effective_ = table.effective();
  }
  if (!choice.sharing.empty() && !sharing_applied) {
    std::vector<std::string> sharing;
    for (const auto& e : entries_)
      for (const Key& k : keys(*e))
        if (k.name == e->family + ".sharing") sharing.push_back(e->name);
    throw InputError("--sharing: mechanism '" + d.name + "' does not share resources; --sharing applies to " +
                     join(sharing, " and "));
  }
  if (d.validate) d.validate(*c.settings_, given);
  return c;
}

std::string MechanismRegistry::describe() const {
  size_t name_width = 4, key_width = 0;  // at least the header's "name"
  for (const auto& e : entries_) {
    name_width = std::max(name_width, e->name.size());
    for (const Key& k : keys(*e)) key_width = std::max(key_width, k.name.size() + 3 + k.value.size());
  }
  auto pad = [](std::string text, size_t width) {
    return text + std::string(width > text.size() ? width - text.size() : 0, ' ');
  };
  std::ostringstream os;
  os << pad("name", name_width) << "  " << pad("run", 9) << "  description; then its --set keys, defaults\n";
  for (const auto& e : entries_) {
    const char* run = e->simulated() ? "simulated" : e->has_occupancy() ? "occupancy" : "cost only";
    os << pad(e->name, name_width) << "  " << pad(run, 9) << "  "
       << e->description << "\n";
    for (const Key& k : keys(*e)) os << "  " << pad(k.name + " = " + k.value, key_width) << "  " << k.doc << "\n";
  }
  os << "simulated: smshare run and occupancy accept it; occupancy: smshare occupancy computes its admission, "
        "run does not simulate it yet; cost only: registered for smshare area (and hw-cost where it declares a "
        "storage formula), not simulated yet\n";
  return os.str();
}

MechanismRegistry& mechanism_registry() {
  static MechanismRegistry registry = [] {
    MechanismRegistry r;
    register_all_mechanisms(r);
    return r;
  }();
  return registry;
}

}  // namespace smshare
