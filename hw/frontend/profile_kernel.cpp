#include "hw/frontend/profile_kernel.hpp"

#include <algorithm>
#include <bitset>
#include <cstddef>
#include <cstring>
#include <stdexcept>
#include <utility>

#include "hw/common/error.hpp"
#include "hw/frontend/kernel_body.hpp"
#include "hw/frontend/rng.hpp"

namespace smshare {
namespace {

constexpr uint64_t kOne = 1ull << 32;  // fixed point for the barrier accumulator
constexpr uint32_t kPcStep = 8;        // bytes per instruction (SASS encoding on Fermi)
constexpr uint32_t kLineBytes = 128;   // coalesced chunks stay line aligned

// A phase as a warp walks it: its code, where its PCs start, and its part of
// the CTA's scratchpad.
struct PhaseWalk {
  uint32_t first = 0, size = 0;  // body[first, first + size)
  uint32_t repeat = 0;           // executions in a row; 0: loop for the rest of the warp (a flat profile)
  bool barrier_after = false;
  uint32_t pc_slot = 0;          // its first instruction's PC / kPcStep; its barrier's is pc_slot + size
  uint32_t smem_first = 0;       // first word of its scratchpad region
  uint32_t smem_words = 0;       // usable words of the region (a multiple of 32 when >= 32)
  uint32_t smem_stride = 1;      // words, mod smem_words
};

// A body instruction as every warp streams it, but for its lane addresses
// and the warp's own lanes: the bytes of its WarpInstruction that
// copy_without_addresses copies (PC, phase and access width included), made
// once per kernel, so that next() copies 32 bytes instead of setting nine
// fields one by one.
struct StreamedHead {
  alignas(WarpInstruction) unsigned char bytes[offsetof(WarpInstruction, addr)];
};

// Everything about a kernel that warps share; immutable after construction.
struct KernelShape {
  std::string name;
  KernelResources res;
  KernelBody body;
  std::vector<StreamedHead> heads;  // per body instruction
  std::vector<PhaseWalk> phases;
  uint32_t warps_per_cta = 1;
  uint32_t last_warp_mask = 0xFFFFFFFFu;  // lanes of the last warp when threads % 32 != 0
  uint32_t instructions_per_warp = 0;
  uint64_t barrier_step = 0;  // barriers_per_instruction in 32.32 fixed point
  uint64_t seed = 0;

  GlobalPattern pattern = GlobalPattern::Coalesced;
  uint32_t access_bytes = 4;
  uint64_t footprint = 0;    // usable bytes of each region (whole access units)
  uint64_t chunk = 0;        // coalesced: bytes each warp sweeps
  uint64_t chunk_slots = 1;  // coalesced: chunks in the footprint
  uint64_t stride = 0;       // strided: lane-to-lane distance mod footprint
  uint64_t load_base = kGlobalLoadBase, store_base = 0;

};

// One warp's walk through one global region (loads or stores).
struct GlobalCursor {
  uint64_t base = 0;   // region start (+ chunk start for coalesced)
  uint64_t pos = 0;    // coalesced: offset in chunk; strided: offset of lane 0 in region
};

class ProfileWarpProgram final : public WarpProgram {
 public:
  ProfileWarpProgram(std::shared_ptr<const KernelShape> k, uint32_t cta, uint32_t warp)
      : k_(std::move(k)),
        warp_(warp),
        remaining_(k_->instructions_per_warp),
        warp_mask_(warp + 1 == k_->warps_per_cta ? k_->last_warp_mask : 0xFFFFFFFFu),
        rng_(stream_seed(k_->seed, cta, warp)) {
    const uint64_t gwarp = uint64_t{cta} * k_->warps_per_cta + warp;
    const uint64_t f = k_->footprint;
    load_.base = k_->load_base;
    store_.base = k_->store_base;
    if (k_->pattern == GlobalPattern::Coalesced) {
      const uint64_t start = (gwarp % k_->chunk_slots) * k_->chunk;
      load_.base += start;
      store_.base += start;
    } else if (k_->pattern == GlobalPattern::Strided) {
      // Thread t's first element is t * stride: lane 0 of this warp starts at gwarp * 32 * stride.
      load_.pos = store_.pos =
          static_cast<uint64_t>((static_cast<unsigned __int128>(gwarp) * kWarpLanes * k_->stride) % f);
    }
    enter_phase(0);
  }

  bool next(WarpInstruction& out) override {
    if (remaining_ == 0) return false;
    --remaining_;
    barrier_acc_ += k_->barrier_step;
    if (barrier_acc_ >= kOne) {  // same count on every warp of a CTA: barriers always match
      barrier_acc_ -= kOne;
      barrier(out);
      return true;
    }
    if (barrier_due_) {  // the end of an execution of a phase with barrier_after
      barrier(out);
      barrier_due_ = false;
      end_execution();
      return true;
    }
    // The head leaves lanes_evenly_spaced false: the address patterns below
    // that write every lane need nothing more, and a run sets it.
    std::memcpy(static_cast<void*>(&out), heads_[index_].bytes, sizeof(StreamedHead));
    out.active_mask &= warp_mask_;
    switch (out.op) {
      case OpClass::GlobalLoad:
        global_addresses(out, load_);
        break;
      case OpClass::GlobalStore:
        global_addresses(out, store_);
        break;
      case OpClass::SharedLoad:
      case OpClass::SharedStore:
        shared_addresses(out);
        break;
      default:
        break;
    }
    // Only now may the walk move on: the addresses above are this phase's.
    if (++index_ == phase_->size) {
      index_ = 0;
      if (phase_->barrier_after) barrier_due_ = true;
      else end_execution();
    }
    return true;
  }

 private:
  void global_addresses(WarpInstruction& out, GlobalCursor& c) {
    const KernelShape& k = *k_;
    const uint32_t ab = k.access_bytes;
    switch (k.pattern) {
      case GlobalPattern::Coalesced: {
        out.set_evenly_spaced_lanes(c.base + c.pos, ab);
        c.pos += uint64_t{kWarpLanes} * ab;
        if (c.pos >= k.chunk) c.pos = 0;
        break;
      }
      case GlobalPattern::Strided: {
        uint64_t x = c.pos;
        for (unsigned l = 0; l < kWarpLanes; ++l) {
          out.addr[l] = c.base + x;
          x += k.stride;
          if (x >= k.footprint) x -= k.footprint;
        }
        c.pos += ab;  // next iteration: each thread's next element
        if (c.pos >= k.footprint) c.pos -= k.footprint;
        break;
      }
      case GlobalPattern::Random: {
        const uint64_t units = k.footprint / ab;
        for (unsigned l = 0; l < kWarpLanes; ++l) out.addr[l] = c.base + rng_.below(units) * ab;
        break;
      }
    }
  }

  // Lane l of the warp touches word (pos + l * stride) mod the phase's region;
  // the warp's walk starts at its own row (warp * 32 * stride) on entering
  // the phase and moves one word per access.
  void shared_addresses(WarpInstruction& out) {
    const PhaseWalk& ph = *phase_;
    uint32_t x = smem_pos_;
    if (uint64_t{x} + uint64_t{kWarpLanes - 1} * ph.smem_stride < ph.smem_words) {
      // No lane wraps around the region (most accesses): the same words as
      // the loop below, given as one run of byte addresses.
      out.set_evenly_spaced_lanes(uint64_t{ph.smem_first + x} * 4, uint64_t{ph.smem_stride} * 4);
    } else {
      for (unsigned l = 0; l < kWarpLanes; ++l) {
        out.addr[l] = uint64_t{ph.smem_first + x} * 4;
        x += ph.smem_stride;
        if (x >= ph.smem_words) x -= ph.smem_words;
      }
    }
    if (++smem_pos_ == ph.smem_words) smem_pos_ = 0;
  }

  void barrier(WarpInstruction& out) const {
    out.op = OpClass::Barrier;
    out.num_dst = out.num_src = 0;
    out.access_bytes = 0;
    out.active_mask = warp_mask_;
    out.pc = uint64_t{phase_->pc_slot + phase_->size} * kPcStep;
    out.phase = static_cast<uint16_t>(phase_index_);
    out.dst = {kNoReg, kNoReg};
    out.src = {kNoReg, kNoReg, kNoReg, kNoReg};
  }

  void enter_phase(size_t p) {
    phase_index_ = p;
    phase_ = &k_->phases[p];
    heads_ = k_->heads.data() + phase_->first;
    executions_left_ = phase_->repeat;
    index_ = 0;
    smem_pos_ = phase_->smem_words
                    ? static_cast<uint32_t>((uint64_t{warp_} * kWarpLanes * phase_->smem_stride) % phase_->smem_words)
                    : 0;
  }

  // One execution of the current phase is complete: repeat it or go on
  // (a looping phase, repeat 0, runs until the warp's instructions run out).
  void end_execution() {
    if (phase_->repeat == 0 || --executions_left_ > 0) return;
    if (phase_index_ + 1 < k_->phases.size()) enter_phase(phase_index_ + 1);
  }

  std::shared_ptr<const KernelShape> k_;
  uint32_t warp_;
  size_t phase_index_ = 0;
  const PhaseWalk* phase_ = nullptr;
  const StreamedHead* heads_ = nullptr;  // the current phase's code
  uint32_t executions_left_ = 0;
  bool barrier_due_ = false;
  uint32_t index_ = 0;
  uint32_t remaining_;
  uint32_t warp_mask_;
  uint64_t barrier_acc_ = 0;
  GlobalCursor load_, store_;
  uint32_t smem_pos_ = 0;
  SplitMix64 rng_;
};

class ProfileKernel final : public KernelSource {
 public:
  explicit ProfileKernel(std::shared_ptr<const KernelShape> k) : k_(std::move(k)) {}
  const std::string& name() const override { return k_->name; }
  const KernelResources& resources() const override { return k_->res; }
  std::unique_ptr<WarpProgram> warp_program(uint32_t cta_id, uint32_t warp_in_cta) override {
    if (cta_id >= k_->res.grid_ctas || warp_in_cta >= k_->warps_per_cta)
      throw std::out_of_range("kernel " + k_->name + ": no warp " + std::to_string(warp_in_cta) + " in CTA " +
                              std::to_string(cta_id) + " (grid " + std::to_string(k_->res.grid_ctas) + " CTAs of " +
                              std::to_string(k_->warps_per_cta) + " warps)");
    return std::make_unique<ProfileWarpProgram>(k_, cta_id, warp_in_cta);
  }
  // Every warp streams exactly instructions_per_warp, barriers included.
  std::optional<uint64_t> total_warp_instructions() const override {
    return uint64_t{k_->res.grid_ctas} * k_->warps_per_cta * k_->instructions_per_warp;
  }

 private:
  std::shared_ptr<const KernelShape> k_;
};

using ByteRanges = std::vector<std::pair<uint32_t, uint32_t>>;  // sorted, disjoint [first, end)

// Adds [first, end) to `ranges`, keeping them sorted, disjoint and merged
// (ranges that touch become one).
void hold_bytes(ByteRanges& ranges, uint32_t first, uint32_t end) {
  if (first >= end) return;
  ranges.emplace_back(first, end);
  std::sort(ranges.begin(), ranges.end());
  ByteRanges merged;
  for (const auto& r : ranges) {
    if (!merged.empty() && r.first <= merged.back().second)
      merged.back().second = std::max(merged.back().second, r.second);
    else
      merged.push_back(r);
  }
  ranges = std::move(merged);
}

// Zorua's phase specifier for scratchpad (Sec. 4.6), per phase, in bytes of
// the CTA's scratchpad: a phase whose code has shared loads or stores holds
// its region (the words its accesses cycle over, 4 bytes each); the part of
// one phase's region that it stores to and a later phase loads from is live
// through the phases between (conservatively: a store in between is not
// taken to end it). A flat profile's one looping phase holds the whole
// allocation when its code has any shared access.
std::vector<ByteRanges> phase_scratchpad(const KernelBody& body, const std::vector<PhaseWalk>& phases,
                                         uint32_t smem_bytes, bool flat) {
  const size_t n = phases.size();
  std::vector<bool> loads(n, false), stores(n, false);
  for (size_t p = 0; p < n; ++p)
    for (uint32_t i = phases[p].first; i < phases[p].first + phases[p].size; ++i) {
      loads[p] = loads[p] || body[i].op == OpClass::SharedLoad;
      stores[p] = stores[p] || body[i].op == OpClass::SharedStore;
    }
  std::vector<ByteRanges> held(n);
  if (flat) {
    if (loads[0] || stores[0]) hold_bytes(held[0], 0, smem_bytes);
    return held;
  }
  auto region = [&](size_t p) {
    return std::make_pair(phases[p].smem_first * 4, (phases[p].smem_first + phases[p].smem_words) * 4);
  };
  for (size_t p = 0; p < n; ++p)
    if (loads[p] || stores[p]) hold_bytes(held[p], region(p).first, region(p).second);
  for (size_t w = 0; w < n; ++w) {
    if (!stores[w]) continue;
    for (size_t r = w + 2; r < n; ++r) {
      if (!loads[r]) continue;
      const uint32_t first = std::max(region(w).first, region(r).first);
      const uint32_t end = std::min(region(w).second, region(r).second);
      for (size_t between = w + 1; between < r; ++between) hold_bytes(held[between], first, end);
    }
  }
  return held;
}

// `flag` is the CLI what-if flag that sets the key, named in the error.
void override_value(uint32_t& field, int64_t value, int64_t lo, int64_t hi, const std::string& file,
                    const char* key, const char* flag) {
  if (value < 0) return;  // not overridden
  if (value < lo || value > hi)
    throw input_error(file + " (with overrides)", key,
                      std::string(flag) + " " + std::to_string(value) + ": not an integer in [" +
                          std::to_string(lo) + ", " + std::to_string(hi) + "]");
  field = static_cast<uint32_t>(value);
}

}  // namespace

std::unique_ptr<KernelSource> make_profile_kernel(const KernelProfile& profile, const ResourceOverrides& overrides,
                                                  const FrontendOptions& options) {
  auto k = std::make_shared<KernelShape>();
  KernelShape& s = *k;
  s.name = profile.name;
  s.res = profile.resources;
  const std::string& file = profile.file;
  override_value(s.res.grid_ctas, overrides.grid_ctas, 1, (int64_t{1} << 31) - 1, file, "grid_ctas", "--ctas");
  override_value(s.res.threads_per_cta, overrides.threads_per_cta, 1, 2048, file, "threads_per_cta",
                 "--threads-per-cta");
  override_value(s.res.regs_per_thread, overrides.regs_per_thread, 1, 255, file, "regs_per_thread",
                 "--regs-per-thread");
  override_value(s.res.smem_bytes_per_cta, overrides.smem_bytes_per_cta, 0, 1 << 20, file, "smem_bytes_per_cta",
                 "--smem-per-cta");
  if (profile.uses_scratchpad() && s.res.smem_bytes_per_cta < 4)
    throw input_error(file + " (with overrides)", "smem_bytes_per_cta",
                      "is " + std::to_string(s.res.smem_bytes_per_cta) +
                          " but the mix has shared_load/shared_store; it must be at least 4");

  if (overrides.constant_work) s.res.grid_ctas = constant_work_grid(profile.resources, overrides, file);

  KernelCode code = build_kernel_code(profile, s.res.regs_per_thread);
  if (options.reorder_registers && options.reorder_registers_by_weight)
    throw std::logic_error("make_profile_kernel: two register renumberings requested; the run set-up refuses that");
  if (options.reorder_registers) reorder_registers_by_first_use(code.body, s.res.regs_per_thread);
  if (options.reorder_registers_by_weight) reorder_registers_by_weight(code.body, s.res.regs_per_thread);
  const uint32_t smem_words = s.res.smem_bytes_per_cta / 4;
  uint32_t pc_slot = 0;
  for (size_t i = 0; i < code.phases.size(); ++i) {
    const PhaseCode& c = code.phases[i];
    PhaseWalk w;
    w.first = c.first;
    w.size = c.size;
    w.repeat = c.repeat;
    w.barrier_after = c.barrier_after;
    w.pc_slot = pc_slot;
    pc_slot += c.size + 1;  // and a slot for its barrier
    ProfilePhase region;    // a flat profile's scratchpad region is all of it
    region.shared_stride_words = profile.shared_stride_words;
    if (!profile.phases.empty()) region = profile.phases[i];
    w.smem_first = phase_smem_first_word(region, smem_words);
    w.smem_words = phase_smem_words(region, smem_words);
    w.smem_stride = w.smem_words ? region.shared_stride_words % w.smem_words : 0;
    if (!profile.phases.empty()) check_phase_scratchpad(region, i, s.res.smem_bytes_per_cta, file + " (with overrides)");
    s.phases.push_back(w);
  }
  for (const ProfilePhase& ph : profile.phases) s.res.phase_names.push_back(ph.name);
  const std::vector<ByteRanges> smem_held = phase_scratchpad(code.body, s.phases, s.res.smem_bytes_per_cta,
                                                            profile.phases.empty());
  const std::vector<std::bitset<kMaxArchRegs>> regs_held = phase_registers(code);
  for (size_t i = 0; i < code.phases.size(); ++i) s.res.phase_needs.push_back({regs_held[i], smem_held[i]});
  s.body = std::move(code.body);

  s.warps_per_cta = s.res.warps_per_cta();
  const uint32_t tail = s.res.threads_per_cta % kWarpLanes;
  s.last_warp_mask = tail ? (1u << tail) - 1 : 0xFFFFFFFFu;
  s.instructions_per_warp = profile.instructions_per_warp;
  s.barrier_step = static_cast<uint64_t>(profile.barriers_per_instruction * static_cast<double>(kOne) + 0.5);
  s.seed = profile.seed;

  s.pattern = profile.global_pattern;
  s.access_bytes = profile.global_access_bytes;
  const uint64_t unit = std::max<uint64_t>(kLineBytes, uint64_t{kWarpLanes} * s.access_bytes);
  s.footprint = profile.global_footprint_bytes / unit * unit;
  if (s.footprint == 0) s.footprint = profile.global_footprint_bytes / s.access_bytes * s.access_bytes;
  const uint64_t total_warps = uint64_t{s.res.grid_ctas} * s.warps_per_cta;
  const uint64_t units = s.footprint / unit;
  s.chunk = std::max<uint64_t>(1, units / total_warps) * unit;
  if (s.chunk > s.footprint) s.chunk = s.footprint;
  s.chunk_slots = std::max<uint64_t>(1, s.footprint / s.chunk);
  s.stride = profile.global_stride_bytes % s.footprint;
  s.store_base = s.load_base + (s.footprint + kGlobalRegionAlign - 1) / kGlobalRegionAlign * kGlobalRegionAlign;
  if (s.store_base + s.footprint > kGlobalLimit)
    throw input_error(file, "global.footprint_bytes", "load and store regions would reach the swap region");

  // What each body instruction streams as (StreamedHead); the access width
  // is that of the classes next() makes addresses for, 0 for the others.
  s.heads.resize(s.body.size());
  for (size_t p = 0; p < s.phases.size(); ++p) {
    const PhaseWalk& ph = s.phases[p];
    for (uint32_t i = 0; i < ph.size; ++i) {
      const BodyInstruction& in = s.body[ph.first + i];
      WarpInstruction w;
      w.op = in.op;
      w.num_dst = in.num_dst;
      w.num_src = in.num_src;
      const bool global = in.op == OpClass::GlobalLoad || in.op == OpClass::GlobalStore;
      w.access_bytes = static_cast<uint8_t>(global ? s.access_bytes : is_shared_memory(in.op) ? 4 : 0);
      w.active_mask = in.active_mask;  // ANDed with the warp's lanes as it streams
      w.pc = uint64_t{ph.pc_slot + i} * kPcStep;
      w.dst = in.dst;
      w.src = in.src;
      w.phase = static_cast<uint16_t>(p);
      std::memcpy(s.heads[ph.first + i].bytes, &w, sizeof(StreamedHead));
    }
  }

  return std::make_unique<ProfileKernel>(std::move(k));
}

}  // namespace smshare
