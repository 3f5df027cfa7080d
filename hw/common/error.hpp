// One exception type for everything a user can get wrong (a config, a kernel
// profile, a trace, a CACTI cfg, a CLI flag). The CLI prints what() and exits
// non-zero; nothing a user types should crash the model.
#pragma once

#include <stdexcept>
#include <string>

namespace smshare {

class InputError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// "<file>: <key>: <problem>" — the form every input error takes, so a user
// always learns which file and which key to fix.
inline InputError input_error(const std::string& file, const std::string& key, const std::string& problem) {
  std::string msg = file;
  if (!key.empty()) msg += ": key '" + key + "'";
  msg += ": " + problem;
  return InputError(msg);
}

}  // namespace smshare
