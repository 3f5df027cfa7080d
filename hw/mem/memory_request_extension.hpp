// TLM-2.0 extension of a READ or WRITE to the memory system
// (memory_system_module.hpp), one for everything the generic payload does
// not say, so that the target looks up one extension a transaction (a
// get_extension is a call into the SystemC library):
//  * `chunks`: which 32-byte chunks of a line the request moves (ChunkMask,
//    bit 0 = the chunk holding the payload's address). A sectored L1's miss
//    needs only its missing sectors, which need not be contiguous: the
//    payload's data length is the bytes moved (chunks x 32) and the mask
//    says where they lie. Empty (or no extension): the contiguous bytes
//    [address, address + data length).
//  * `token` and `deferred`, for responses the memory system decides later
//    (dram.scheduler: frfcfs). The initiator names its READ with `token`; if
//    the target cannot tell yet when the data will be back (the DRAM
//    channel has not decided it), b_transport returns with an OK status,
//    `deferred` set and the delay unchanged, and the memory system later
//    calls the initiator's SM back with the token and the time
//    (MemorySystem::advance, GpuModule's clock). A payload without the
//    extension is never deferred.
#pragma once

#include <cstdint>

#include <tlm>

#include "hw/common/chunk_mask.hpp"

namespace smshare {

struct MemoryRequestExtension : tlm::tlm_extension<MemoryRequestExtension> {
  ChunkMask chunks;       // set by the initiator
  uint64_t token = 0;     // set by the initiator
  bool deferred = false;  // set by the target

  tlm::tlm_extension_base* clone() const override { return new MemoryRequestExtension(*this); }
  void copy_from(const tlm::tlm_extension_base& other) override {
    const auto& o = static_cast<const MemoryRequestExtension&>(other);
    chunks = o.chunks;
    token = o.token;
    deferred = o.deferred;
  }
};

}  // namespace smshare
