// The message of the InputError `f` throws, or "" if it throws none: for
// tests that check what a bad input's error names.
#pragma once

#include <string>

#include "hw/common/error.hpp"

namespace smshare::tb {

template <typename F>
std::string input_error_of(F f) {
  try {
    f();
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

}  // namespace smshare::tb
