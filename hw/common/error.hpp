// One exception type for everything a user can get wrong (a config, a kernel
// profile, a trace, a CACTI cfg, a CLI flag). The CLI prints what() and exits
// non-zero; nothing a user types should crash the model.
#pragma once

#include <cstdint>
#include <cstdio>
#include <stdexcept>
#include <string>
#include <vector>

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

// "0x1f": how an error shows an address.
inline std::string hex(uint64_t value) {
  char text[19];
  std::snprintf(text, sizeof text, "0x%llx", static_cast<unsigned long long>(value));
  return text;
}

// "a, b, c": how an error lists the allowed values or the known names.
inline std::string join(const std::vector<std::string>& items, const char* sep = ", ") {
  std::string s;
  for (size_t i = 0; i < items.size(); ++i) s += (i ? sep : "") + items[i];
  return s;
}

}  // namespace smshare
