#include "hw/common/params.hpp"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <sstream>

#include "hw/common/error.hpp"

namespace smshare {
namespace {

std::string format_double(double v) {
  std::ostringstream os;
  os.precision(12);
  os << v;
  return os.str();
}

bool parse_u64(const std::string& text, uint64_t& out) {
  if (text.empty() || text[0] == '-' || text[0] == '+') return false;
  errno = 0;
  char* end = nullptr;
  unsigned long long v = std::strtoull(text.c_str(), &end, 0);
  if (errno != 0 || end == text.c_str() || *end != '\0') return false;
  out = v;
  return true;
}

bool parse_f64(const std::string& text, double& out) {
  if (text.empty()) return false;
  errno = 0;
  char* end = nullptr;
  double v = std::strtod(text.c_str(), &end);
  if (errno != 0 || end == text.c_str() || *end != '\0' || !std::isfinite(v)) return false;
  out = v;
  return true;
}


size_t edit_distance(const std::string& a, const std::string& b) {
  std::vector<size_t> prev(b.size() + 1), cur(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) prev[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    cur[0] = i;
    for (size_t j = 1; j <= b.size(); ++j)
      cur[j] = std::min({prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1)});
    std::swap(prev, cur);
  }
  return prev[b.size()];
}

}  // namespace

void ParamTable::add(const std::string& key, Param p) { params_[key] = std::move(p); }

void ParamTable::add_uint(const std::string& key, uint32_t* target, uint64_t min, uint64_t max,
                          std::string doc) {
  uint64_t hi = std::min<uint64_t>(max, UINT32_MAX);
  Param p;
  p.doc = std::move(doc);
  p.allowed = "an integer in [" + std::to_string(min) + ", " + std::to_string(hi) + "]";
  p.parse = [target, min, hi, allowed = p.allowed](const std::string& text) -> std::string {
    uint64_t v = 0;
    if (!parse_u64(text, v) || v < min || v > hi) return "value '" + text + "' is not " + allowed;
    *target = static_cast<uint32_t>(v);
    return "";
  };
  p.show = [target] { return std::to_string(*target); };
  add(key, std::move(p));
}

void ParamTable::add_uint64(const std::string& key, uint64_t* target, uint64_t min, uint64_t max,
                            std::string doc) {
  Param p;
  p.doc = std::move(doc);
  p.allowed = "an integer in [" + std::to_string(min) + ", " + std::to_string(max) + "]";
  p.parse = [target, min, max, allowed = p.allowed](const std::string& text) -> std::string {
    uint64_t v = 0;
    if (!parse_u64(text, v) || v < min || v > max) return "value '" + text + "' is not " + allowed;
    *target = v;
    return "";
  };
  p.show = [target] { return std::to_string(*target); };
  add(key, std::move(p));
}

void ParamTable::add_double(const std::string& key, double* target, double min, double max,
                            std::string doc) {
  Param p;
  p.doc = std::move(doc);
  p.allowed = "a number in [" + format_double(min) + ", " + format_double(max) + "]";
  p.parse = [target, min, max, allowed = p.allowed](const std::string& text) -> std::string {
    double v = 0;
    if (!parse_f64(text, v) || v < min || v > max) return "value '" + text + "' is not " + allowed;
    *target = v;
    return "";
  };
  p.show = [target] { return format_double(*target); };
  add(key, std::move(p));
}

void ParamTable::add_bool(const std::string& key, bool* target, std::string doc) {
  Param p;
  p.doc = std::move(doc);
  p.allowed = "true or false";
  p.parse = [target](const std::string& text) -> std::string {
    if (text == "true") *target = true;
    else if (text == "false") *target = false;
    else return "value '" + text + "' is not true or false";
    return "";
  };
  p.show = [target] { return std::string(*target ? "true" : "false"); };
  add(key, std::move(p));
}

void ParamTable::add_choice(const std::string& key, std::string* target, std::vector<std::string> allowed,
                            std::string doc) {
  Param p;
  p.doc = std::move(doc);
  p.allowed = "one of: " + join(allowed, ", ");
  p.parse = [target, allowed, text_allowed = p.allowed](const std::string& text) -> std::string {
    if (std::find(allowed.begin(), allowed.end(), text) == allowed.end())
      return "value '" + text + "' is not " + text_allowed;
    *target = text;
    return "";
  };
  p.show = [target] { return *target; };
  add(key, std::move(p));
}

void ParamTable::add_string(const std::string& key, std::string* target, std::string doc) {
  Param p;
  p.doc = std::move(doc);
  p.allowed = "a string";
  p.parse = [target](const std::string& text) -> std::string {
    *target = text;
    return "";
  };
  p.show = [target] { return *target; };
  add(key, std::move(p));
}

void ParamTable::add_custom(const std::string& key, std::string allowed,
                            std::function<std::string(const std::string&)> parse, std::function<std::string()> show,
                            std::string doc) {
  Param p;
  p.doc = std::move(doc);
  p.allowed = std::move(allowed);
  p.parse = std::move(parse);
  p.show = std::move(show);
  add(key, std::move(p));
}

std::string ParamTable::nearest_keys(const std::string& key) const {
  // Keys of the same section ("sm." for "sm.foo") first: a typo rarely
  // changes the section.
  const std::string section = key.substr(0, key.find('.') + 1);
  std::vector<std::pair<size_t, std::string>> scored;
  for (const auto& [k, p] : params_) {
    const bool same_section = !section.empty() && k.compare(0, section.size(), section) == 0;
    scored.emplace_back(edit_distance(key, k) + (same_section ? 0 : 1000), k);
  }
  std::sort(scored.begin(), scored.end());
  std::vector<std::string> best;
  for (size_t i = 0; i < scored.size() && i < 3; ++i) best.push_back(scored[i].second);
  return join(best, ", ");
}

void ParamTable::set(const std::string& key, const std::string& value, const std::string& origin) {
  auto it = params_.find(key);
  if (it == params_.end())
    throw input_error(origin, key, "unknown key (nearest known keys: " + nearest_keys(key) + ")");
  std::string problem = it->second.parse(value);
  if (!problem.empty()) throw input_error(origin, key, problem);
}

void ParamTable::apply_yaml(const YAML::Node& root, const std::string& origin,
                            const std::vector<std::string>& ignore) {
  if (!root.IsMap()) throw input_error(origin, "", "the top level must be a mapping of keys to values");
  std::function<void(const YAML::Node&, const std::string&)> walk = [&](const YAML::Node& node,
                                                                      const std::string& prefix) {
    for (const auto& kv : node) {
      if (!kv.first.IsScalar())
        throw input_error(origin, prefix, "has a key that is not a plain name (line " +
                                              std::to_string(kv.first.Mark().line + 1) + ")");
      const std::string name = kv.first.Scalar();
      const std::string key = prefix.empty() ? name : prefix + "." + name;
      if (prefix.empty() && std::find(ignore.begin(), ignore.end(), name) != ignore.end()) continue;
      const YAML::Node& value = kv.second;
      if (value.IsMap()) {
        walk(value, key);
      } else if (value.IsScalar()) {
        set(key, value.Scalar(), origin);
      } else if (value.IsNull()) {
        throw input_error(origin, key, "has no value");
      } else {
        throw input_error(origin, key, "a list is not allowed here; expected " +
                                           (has(key) ? params_.at(key).allowed : std::string("a scalar")));
      }
    }
  };
  walk(root, "");
}

void ParamTable::apply_overrides(const std::vector<std::string>& assignments, const std::string& origin) {
  for (const auto& a : assignments) {
    auto eq = a.find('=');
    if (eq == std::string::npos || eq == 0)
      throw InputError(origin + ": '" + a + "' is not of the form key=value");
    set(a.substr(0, eq), a.substr(eq + 1), origin);
  }
}

std::vector<std::pair<std::string, std::string>> ParamTable::effective() const {
  std::vector<std::pair<std::string, std::string>> out;
  for (const auto& [k, p] : params_) out.emplace_back(k, p.show());
  return out;
}

std::vector<std::pair<std::string, std::string>> ParamTable::documentation() const {
  std::vector<std::pair<std::string, std::string>> out;
  for (const auto& [k, p] : params_) out.emplace_back(k, p.doc + " (" + p.allowed + ")");
  return out;
}

}  // namespace smshare
