// Typed, named, validated parameters. A block declares the keys it reads,
// with their ranges or allowed values; values then come from YAML files and
// `--set key=value` overrides. A key nobody declared is an error (a typo in a
// config must not fall back to a default silently), and so is a value out of
// range: nothing is clamped.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <utility>
#include <vector>

namespace YAML {
class Node;
}

namespace smshare {

class ParamTable {
 public:
  void add_uint(const std::string& key, uint32_t* target, uint64_t min, uint64_t max, std::string doc);
  void add_uint64(const std::string& key, uint64_t* target, uint64_t min, uint64_t max, std::string doc);
  void add_double(const std::string& key, double* target, double min, double max, std::string doc);
  void add_bool(const std::string& key, bool* target, std::string doc);
  void add_choice(const std::string& key, std::string* target, std::vector<std::string> allowed,
                  std::string doc);
  void add_string(const std::string& key, std::string* target, std::string doc);
  // A key whose values its block parses itself (e.g. Jatala's sharing
  // fraction, held exactly in percent): `parse` stores the value and returns
  // "" or the problem, `show` gives the effective value, `allowed` describes
  // the accepted values in errors and listings.
  void add_custom(const std::string& key, std::string allowed, std::function<std::string(const std::string&)> parse,
                  std::function<std::string()> show, std::string doc);

  bool has(const std::string& key) const { return params_.count(key) != 0; }

  // Sets one key from its textual value. `origin` names where it came from (a
  // file path, or "--set") and appears in every error.
  void set(const std::string& key, const std::string& value, const std::string& origin);

  // Applies every scalar leaf of a YAML mapping as "a.b.c" keys. Keys listed
  // in `ignore` (top-level only) are left for the caller.
  void apply_yaml(const YAML::Node& root, const std::string& origin,
                  const std::vector<std::string>& ignore = {});

  // Applies "key=value" overrides (from the CLI), in order.
  void apply_overrides(const std::vector<std::string>& assignments, const std::string& origin = "--set");

  // Every key with its effective value, sorted by key: printed at start-up
  // and written into reports.
  std::vector<std::pair<std::string, std::string>> effective() const;

  // Keys and their documentation, for `--help` style listings and docs.
  std::vector<std::pair<std::string, std::string>> documentation() const;

 private:
  struct Param {
    std::string doc;
    std::string allowed;  // human-readable range or value list, for errors
    std::function<std::string(const std::string&)> parse;  // returns "" or the problem
    std::function<std::string()> show;
  };
  void add(const std::string& key, Param p);
  std::string nearest_keys(const std::string& key) const;

  std::map<std::string, Param> params_;
};

}  // namespace smshare
