// Which 32-byte chunks of a cache line an access needs, as a bit mask
// (bit i = bytes [32 i, 32 i + 32) of the line). 32 bytes is GPGPU-Sim's
// SECTOR_SIZE: its coalescer marks the 32-byte chunks each warp touches in a
// 128-byte segment (abstract_hardware_model.cc,
// warp_inst_t::memory_coalescing_arch, `info.chunks`) and its sectored
// caches keep one state per 32-byte sector (gpu-cache.h, sector_cache_block).
//
// smshare's sectors are l1.sector_bytes / l2.sector_bytes, a multiple of 32
// (or the whole line when a cache is not sectored), so a set of sectors is
// written as the mask of their chunks (widen()), and the bytes a request moves
// are always chunks x 32. Lines are at most 1024 bytes: 32 chunks.
//
// A distinct type, not a bare integer, so a byte count can never be passed
// where a mask is expected.
#pragma once

#include <cstdint>

#include "hw/common/bit_words.hpp"

namespace smshare {

class ChunkMask {
 public:
  static constexpr uint32_t kChunkBytes = 32;
  static constexpr uint32_t kMaxChunks = 32;  // 1024-byte lines

  constexpr ChunkMask() = default;
  static constexpr ChunkMask from_bits(uint32_t bits) { return ChunkMask(bits); }
  // Every chunk of a `line_bytes` line.
  static constexpr ChunkMask line(uint32_t line_bytes) {
    const uint32_t n = (line_bytes + kChunkBytes - 1) / kChunkBytes;
    return ChunkMask(n >= kMaxChunks ? ~uint32_t{0} : (uint32_t{1} << n) - 1);
  }
  // The chunks bytes [offset, offset + bytes) of a line overlap (bytes > 0,
  // offset + bytes <= 1024).
  static constexpr ChunkMask range(uint32_t offset, uint32_t bytes) {
    const uint32_t first = offset / kChunkBytes;
    const uint32_t last = (offset + bytes - 1) / kChunkBytes;
    return ChunkMask(line((last + 1) * kChunkBytes).bits_ & ~line(first * kChunkBytes).bits_);
  }

  constexpr uint32_t bits() const { return bits_; }
  constexpr bool any() const { return bits_ != 0; }
  // A mask within 4 chunks (a 128-byte line: every config's L1 and L2) is
  // counted from a table of the 16 nibbles' counts held in one constant;
  // wider ones by halves (count_bits, about 12 host instructions).
  constexpr uint32_t count() const {
    return bits_ < 16 ? static_cast<uint32_t>(kNibbleCounts >> (bits_ * 4)) & 0xFu : count_bits(bits_);
  }
  uint32_t bytes() const { return count() * kChunkBytes; }
  bool test(uint32_t chunk) const { return bits_ >> chunk & 1u; }
  // Bytes from the start of the line to the end of the last chunk (0 if none).
  uint32_t end_bytes() const { return bits_ ? (32 - __builtin_clz(bits_)) * kChunkBytes : 0; }

  // Rounded out to whole sectors of `sector_chunks` chunks (a power of two):
  // a sector is needed when any of its chunks is. SectorRounding below.
  constexpr ChunkMask widen(uint32_t sector_chunks) const;
  // The first chunk of every sector of `sector_chunks` chunks (a power of
  // two): a loop over `mask & sector_starts(n)`'s bits visits the sectors
  // `mask` starts, without stepping through the chunks in between.
  static constexpr ChunkMask sector_starts(uint32_t sector_chunks) {
    if (sector_chunks <= 1) return ChunkMask(~uint32_t{0});
    if (sector_chunks >= kMaxChunks) return ChunkMask(1);
    return ChunkMask(~uint32_t{0} / ((uint32_t{1} << sector_chunks) - 1));
  }
  // visit(chunk index) for each chunk of the mask, in increasing order
  // (with sector_starts(): the sectors a mask starts).
  template <class Visit>
  void for_each_chunk(Visit&& visit) const {
    for (uint32_t b = bits_; b; b &= b - 1) visit(static_cast<uint32_t>(__builtin_ctz(b)));
  }
  // The mask seen from a line that starts `chunks` chunks earlier.
  constexpr ChunkMask shifted_up(uint32_t chunks) const { return ChunkMask(chunks >= kMaxChunks ? 0 : bits_ << chunks); }

  constexpr ChunkMask operator|(ChunkMask o) const { return ChunkMask(bits_ | o.bits_); }
  constexpr ChunkMask operator&(ChunkMask o) const { return ChunkMask(bits_ & o.bits_); }
  // The chunks of this mask that are not in `o`.
  constexpr ChunkMask minus(ChunkMask o) const { return ChunkMask(bits_ & ~o.bits_); }
  ChunkMask& operator|=(ChunkMask o) { bits_ |= o.bits_; return *this; }
  constexpr bool operator==(ChunkMask o) const { return bits_ == o.bits_; }
  constexpr bool operator!=(ChunkMask o) const { return bits_ != o.bits_; }

 private:
  constexpr explicit ChunkMask(uint32_t bits) : bits_(bits) {}
  // Nibble n (bits 4n..4n+3) is the number of set bits of n.
  static constexpr uint64_t kNibbleCounts = 0x4332322132212110ull;
  uint32_t bits_ = 0;
};

// ChunkMask::widen(sector_chunks) with the constants of its sector size
// worked out once: a cache rounds every access to the same sectors, and
// working them out per access (a shift, a division, the branches for one
// chunk and for the whole 32) cost about as much as the rounding itself.
class SectorRounding {
 public:
  // `sector_chunks`: a power of two from 1 to ChunkMask::kMaxChunks.
  constexpr explicit SectorRounding(uint32_t sector_chunks)
      : last_(~uint32_t{0} / sector_fill(sector_chunks) << (sector_chunks - 1)),
        shift_(sector_chunks - 1),
        fill_(sector_fill(sector_chunks)) {}

  constexpr uint32_t sector_chunks() const { return shift_ + 1; }
  // The chunks of every sector `chunks` touches.
  constexpr ChunkMask operator()(ChunkMask chunks) const {
    // A sector's last bit is set in `any` when any of its chunks is: adding
    // `low` to its lower bits carries into the last one when one of them is
    // set (without reaching the next sector: the sum is below 2^sector_chunks),
    // and or-ing the chunks keeps a set last one. No loop, no branch, and
    // right for one-chunk sectors (no lower bits: `any` is the mask) and for
    // a 32-chunk one (`any` is bit 31). Multiplying each sector's bit 0 by
    // `fill_` fills the sector without carries, the sectors being disjoint.
    const uint32_t bits = chunks.bits();
    const uint32_t low = ~last_;
    const uint32_t any = (((bits & low) + low) | bits) & last_;
    return ChunkMask::from_bits((any >> shift_) * fill_);
  }

 private:
  // Every chunk of one sector, as the low bits.
  static constexpr uint32_t sector_fill(uint32_t sector_chunks) {
    return sector_chunks >= ChunkMask::kMaxChunks ? ~uint32_t{0} : (uint32_t{1} << sector_chunks) - 1;
  }
  uint32_t last_;   // the last chunk of every sector
  uint32_t shift_;  // from a sector's last chunk to its first
  uint32_t fill_;
};

constexpr ChunkMask ChunkMask::widen(uint32_t sector_chunks) const { return SectorRounding(sector_chunks)(*this); }

}  // namespace smshare
