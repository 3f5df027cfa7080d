// Reading a YAML input file with errors a user can act on (which file, which
// line), shared by every YAML reader (GPU configs, kernel profiles).
#pragma once

#include <yaml-cpp/yaml.h>

#include <string>

#include "hw/common/error.hpp"

namespace smshare {

inline YAML::Node load_yaml_file(const std::string& file) {
  try {
    return YAML::LoadFile(file);
  } catch (const YAML::BadFile&) {
    throw InputError(file + ": cannot be read");
  } catch (const YAML::Exception& e) {
    throw InputError(file + ": malformed YAML at line " + std::to_string(e.mark.line + 1) + ": " + e.msg);
  }
}

}  // namespace smshare
