// TLM-2.0 extension for responses the memory system decides later
// (dram.scheduler: frfcfs). The initiator names its READ with `token`; if the
// target cannot tell yet when the data will be back (the DRAM channel has
// not decided it), b_transport returns with an OK status, `deferred` set and
// the delay unchanged, and the memory system later calls the initiator's SM
// back with the token and the time (MemorySystem::advance, GpuModule's
// clock). A payload without it is never deferred.
#pragma once

#include <cstdint>

#include <tlm>

namespace smshare {

struct DeferredResponseExtension : tlm::tlm_extension<DeferredResponseExtension> {
  uint64_t token = 0;     // set by the initiator
  bool deferred = false;  // set by the target

  tlm::tlm_extension_base* clone() const override {
    auto* e = new DeferredResponseExtension;
    e->token = token;
    e->deferred = deferred;
    return e;
  }
  void copy_from(const tlm::tlm_extension_base& other) override {
    const auto& o = static_cast<const DeferredResponseExtension&>(other);
    token = o.token;
    deferred = o.deferred;
  }
};

}  // namespace smshare
