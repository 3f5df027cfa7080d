#include "hw/common/instruction.hpp"

namespace smshare {

std::string_view to_string(OpClass op) {
  switch (op) {
    case OpClass::IntAlu: return "int_alu";
    case OpClass::FpAlu: return "fp_alu";
    case OpClass::Sfu: return "sfu";
    case OpClass::GlobalLoad: return "global_load";
    case OpClass::GlobalStore: return "global_store";
    case OpClass::LocalLoad: return "local_load";
    case OpClass::LocalStore: return "local_store";
    case OpClass::SharedLoad: return "shared_load";
    case OpClass::SharedStore: return "shared_store";
    case OpClass::Barrier: return "barrier";
    case OpClass::Control: return "control";
    case OpClass::Exit: return "exit";
  }
  return "unknown";
}

}  // namespace smshare
