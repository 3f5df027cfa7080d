// The SM's instruction cache (GPGPU-Sim's L1I, `m_L1I`): LRU tags over the
// instruction region, the table of line fills in flight (what its MSHRs
// merge), and its counters. The fetch stage (SmCore::fetch) owns the timing
// around it; this class only answers lookups.
//
// Rules (GPGPU-Sim 4 shader.cc shader_core_ctx::fetch() and gpu-cache.cc
// read_only_cache::access()):
//  * A fetch looks up the line of the warp's next instruction (one lookup per
//    fetch group, at the group's first PC). A hit is read at once; the
//    fetch stage makes the group issuable icache.hit_latency cycles later.
//  * A miss allocates the line at once (LRU victim) and the fetch stage sends
//    one line read below the SM; fill_in_flight() records when it returns.
//  * A lookup of a line whose fill is still in flight is a pending hit (the
//    MSHR merges it: no second request); the warp waits for that fill
//    exactly like the warp that missed.
//  * Under dram.scheduler: frfcfs the memory system may decide a fill's
//    return later: fill_requested() names the read, and a pending hit on
//    the line answers that read (`fill`) instead of a cycle until
//    fill_decided().
//  * Each kernel starts cold (flush()): both front ends number a kernel's
//    PCs from 0, so two kernels' code would share addresses.
//  * With icache.size_bytes = 0 there is no instruction cache: present() is
//    false and the fetch stage reads the program directly (the default).
#pragma once

#include <cstdint>
#include <memory>
#include <unordered_map>

#include "hw/common/cache_tags.hpp"
#include "hw/common/gpu_config.hpp"

namespace smshare {

class InstructionCache {
 public:
  enum class Outcome : uint8_t {
    Hit,         // the line is present and filled
    Miss,        // the line was allocated: the caller sends its read below
    PendingHit,  // the line's fill is in flight: wait for it (`fill_ready`)
  };
  static constexpr uint32_t kDecided = ~0u;
  struct Lookup {
    Outcome outcome;
    uint64_t fill_ready;         // PendingHit: the cycle the fill returns; otherwise unused
    uint32_t fill = kDecided;    // PendingHit under FR-FCFS: the read whose return is not decided yet
  };
  // This cycle's activity, for waveforms (plain stores).
  struct Probes {
    uint32_t hits_this_cycle = 0;
    uint32_t misses_this_cycle = 0;
  };

  explicit InstructionCache(const CacheSpec& spec);

  bool present() const { return tags_ != nullptr; }
  uint32_t line_bytes() const { return spec_.line_bytes; }
  uint32_t hit_latency() const { return spec_.hit_latency; }
  void begin_cycle() { probes_ = {}; }
  void flush();

  // Line-aligned address of the instruction at byte address `addr`.
  uint64_t line_of(uint64_t addr) const { return addr & ~uint64_t{spec_.line_bytes - 1}; }

  // A fetch of the instruction at byte address `addr` (in the instruction
  // region: instruction_address(pc)) in `cycle`.
  Lookup fetch(uint64_t addr, uint64_t cycle);
  // The read of `line` that missed in `cycle` returns in `ready`.
  void fill_in_flight(uint64_t line, uint64_t ready, uint64_t cycle);
  // dram.scheduler: frfcfs. The read `fill` of `line` returns at a time decided later...
  void fill_requested(uint64_t line, uint32_t fill) {
    undecided_[line] = fill;
    last_hit_line_ = kNoLine;
  }
  // ... in `ready`, decided in `cycle`.
  void fill_decided(uint64_t line, uint32_t fill, uint64_t ready, uint64_t cycle);

  uint64_t hits() const { return hits_; }
  uint64_t misses() const { return misses_; }
  uint64_t pending_hits() const { return pending_hits_; }
  uint64_t fills() const { return fills_; }
  // Cleared each cycle only in an SM a waveform traces (SmCore::set_probes_traced);
  // elsewhere they accumulate and are read by nobody.
  const Probes& probes() const { return probes_; }

 private:
  const CacheSpec spec_;
  std::unique_ptr<CacheTags> tags_;
  std::unordered_map<uint64_t, uint64_t> fill_ready_;  // line -> cycle its in-flight fill returns
  std::unordered_map<uint64_t, uint32_t> undecided_;   // FR-FCFS: line -> read whose return is undecided
  // The line of the last Hit and its tag entry. Consecutive fetch groups
  // mostly read the same line: while no fill of it has been recorded since
  // (fill_requested, fill_in_flight, flush forget it), its next fetch is a
  // Hit again if the tags still hold it there, found without the search.
  static constexpr uint64_t kNoLine = ~0ull;
  // fetch() past that shortcut: the search of the set and the rest. Out of
  // line, so that fetch(), inlined into SmCore::tick, stays the shortcut
  // and a call, while the tags' access is compiled into this one.
  [[gnu::noinline]] Lookup fetch_searched(uint64_t line, uint64_t cycle);
  uint64_t last_hit_line_ = kNoLine;
  uint32_t last_hit_entry_ = 0;
  uint64_t hits_ = 0, misses_ = 0, pending_hits_ = 0, fills_ = 0;
  Probes probes_;
};

}  // namespace smshare
