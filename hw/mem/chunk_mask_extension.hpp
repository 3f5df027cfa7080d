// TLM-2.0 extension naming which 32-byte chunks of a line a READ or WRITE
// moves (ChunkMask, bit 0 = the chunk holding the payload's address). A
// sectored L1's miss needs only its missing sectors, which need not be
// contiguous: the payload's data length is the bytes moved
// (chunks x 32) and this extension says where they lie. A payload without it
// (or with an empty mask) moves the contiguous bytes
// [address, address + data length).
#pragma once

#include <tlm>

#include "hw/common/chunk_mask.hpp"

namespace smshare {

struct ChunkMaskExtension : tlm::tlm_extension<ChunkMaskExtension> {
  ChunkMask chunks;

  tlm::tlm_extension_base* clone() const override {
    auto* e = new ChunkMaskExtension;
    e->chunks = chunks;
    return e;
  }
  void copy_from(const tlm::tlm_extension_base& other) override {
    chunks = static_cast<const ChunkMaskExtension&>(other).chunks;
  }
};

}  // namespace smshare
