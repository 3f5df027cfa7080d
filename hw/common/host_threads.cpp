#include "hw/common/host_threads.hpp"

#include <algorithm>

#include "hw/common/error.hpp"

namespace smshare {

unsigned parse_host_threads(const std::string& text, const std::string& origin, const std::string& key) {
  const auto refuse = [&] {
    return input_error(origin, key,
                       "'" + text + "' is not a number of host threads (allowed: 1 to " +
                           std::to_string(kMaxHostThreads) + ")");
  };
  // Saturates one past the range, so no count of digits can overflow it.
  unsigned value = 0;
  for (const char c : text) {
    if (c < '0' || c > '9') throw refuse();
    value = std::min(value * 10 + static_cast<unsigned>(c - '0'), kMaxHostThreads + 1);
  }
  if (value < 1 || value > kMaxHostThreads) throw refuse();  // also the empty text
  return value;
}

}  // namespace smshare
