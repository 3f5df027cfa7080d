#include "hw/frontend/kernel_body.hpp"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <utility>

#include "hw/frontend/kernel_profile.hpp"
#include "hw/frontend/rng.hpp"

namespace smshare {

unsigned dst_count(OpClass op) {
  switch (op) {
    case OpClass::GlobalStore:
    case OpClass::LocalStore:
    case OpClass::SharedStore:
    case OpClass::Barrier:
    case OpClass::Control:
    case OpClass::Exit:
      return 0;
    default:
      return 1;
  }
}

unsigned src_count(OpClass op, bool wide) {
  switch (op) {
    case OpClass::IntAlu:
    case OpClass::FpAlu:
      return wide ? 3 : 2;
    case OpClass::Sfu:
    case OpClass::GlobalLoad:
    case OpClass::LocalLoad:
    case OpClass::SharedLoad:
    case OpClass::Control:
      return 1;  // operand, or address
    case OpClass::GlobalStore:
    case OpClass::LocalStore:
    case OpClass::SharedStore:
      return 2;  // address and data
    default:
      return 0;
  }
}

namespace {

// Probability of the three-input form: FFMA dominates FP code; IMAD and
// three-input logic are rarer in integer code.
double wide_probability(OpClass op) { return op == OpClass::FpAlu ? 0.5 : op == OpClass::IntAlu ? 0.25 : 0.0; }

// Exact class counts for n instructions by largest remainder, so each loop
// iteration reproduces the mix to within 1/n.
std::array<uint32_t, kNumMixClasses> apportion(const std::array<double, kNumMixClasses>& mix, uint32_t n) {
  std::array<uint32_t, kNumMixClasses> count{};
  std::array<double, kNumMixClasses> rest{};
  uint32_t given = 0;
  for (unsigned c = 0; c < kNumMixClasses; ++c) {
    const double exact = mix[c] * n;
    count[c] = static_cast<uint32_t>(std::floor(exact));
    rest[c] = exact - count[c];
    given += count[c];
  }
  while (given < n) {
    unsigned best = 0;
    for (unsigned c = 1; c < kNumMixClasses; ++c)
      if (rest[c] > rest[best]) best = c;
    ++count[best];
    rest[best] = -1;
    ++given;
  }
  return count;
}

// What the generator needs of one phase, resolved against the profile (a
// flat profile is one looping phase over all registers).
struct PhaseSpec {
  const std::array<double, kNumMixClasses>* mix;
  uint32_t instructions;
  bool loops;  // repeats its own code: its first instructions read what its last ones wrote
  double mean_distance;
  uint32_t lo, hi;  // register range (inclusive)
  uint32_t hot;
  double hot_fraction;
};

// Destinations in the phase's range [lo, hi]: lo..lo+hot-1 are the hot set,
// the rest cold. Cold registers are visited round-robin, and any register
// still unwritten takes over a hot destination slot (evenly spread), so that
// every register of the range is used, as ptxas would never allocate a
// register nobody touches.
void assign_destinations(BodyInstruction* body, uint32_t n, const PhaseSpec& ph, SplitMix64& rng) {
  const uint32_t regs = ph.hi - ph.lo + 1;
  const uint32_t hot = std::min(ph.hot, regs);
  const uint32_t cold = regs - hot;
  uint32_t next_cold = 0, cold_written = 0;
  std::vector<uint32_t> hot_slots;
  for (uint32_t i = 0; i < n; ++i) {
    auto& in = body[i];
    if (!in.num_dst) continue;
    if (cold == 0 || rng.uniform() < ph.hot_fraction) {
      in.dst[0] = static_cast<uint16_t>(ph.lo + rng.below(hot));
      hot_slots.push_back(i);
    } else {
      in.dst[0] = static_cast<uint16_t>(ph.lo + hot + next_cold);
      next_cold = (next_cold + 1) % cold;
      ++cold_written;
    }
  }
  const uint32_t missing = cold > cold_written ? cold - cold_written : 0;
  const uint32_t take = std::min<uint32_t>(missing, static_cast<uint32_t>(hot_slots.size()));
  for (uint32_t j = 0; j < take; ++j)
    body[hot_slots[uint64_t{j} * hot_slots.size() / take]].dst[0] = static_cast<uint16_t>(ph.lo + hot + cold_written + j);
}

// Destination-carrying share of the body, from the mix.
double dst_share(const KernelProfile& p) {
  double share = 0;
  for (unsigned c = 0; c < kNumMixClasses; ++c) share += dst_count(to_op_class(static_cast<MixClass>(c))) ? p.mix[c] : 0;
  return share;
}

// static_instructions is a minimum: the body grows until the cold draws can
// cover the cold set, so the hot fraction holds for kernels with many
// registers too.
uint32_t body_length(const KernelProfile& p, uint32_t regs) {
  const uint32_t cold = regs - std::min(p.hot_registers, regs);
  const double cold_writes_per_inst = (1.0 - p.hot_fraction) * dst_share(p);
  uint64_t n = p.static_instructions;
  if (cold && cold_writes_per_inst > 0)
    n = std::max<uint64_t>(n, static_cast<uint64_t>(std::ceil(1.25 * cold / cold_writes_per_inst)));
  return static_cast<uint32_t>(std::min<uint64_t>(n, 65536));
}

// Sources: draw a dependence distance d (geometric, the phase's mean) and
// read the live value in the phase's register range whose producer is
// nearest d instructions back. `last` holds, per register, the position of
// its latest write in the kernel's code so far (phases in order; kNever:
// not written yet, a kernel input). A looping phase's first instructions read
// what its own last ones wrote in the previous execution, so its own writes
// count one execution back, and values from earlier phases one execution
// further. Choosing among live values (rather than "the register written at
// i-d", which a later write may have overwritten) keeps the distance a
// consumer actually sees close to the one drawn.
constexpr int64_t kNever = INT64_MIN / 2;

void assign_sources(BodyInstruction* body, int64_t start, uint32_t count, const PhaseSpec& ph,
                    std::vector<int64_t>& last, SplitMix64& rng) {
  const int64_t n = count;
  std::vector<int64_t> before;  // earlier phases' writes, restored for the phases after a looping one
  if (ph.loops) {
    before = last;
    for (int64_t& at : last)
      if (at != kNever) at -= n;
    for (int64_t i = 0; i < n; ++i)
      if (body[i].num_dst) last[body[i].dst[0]] = start + i - n;  // writes of the previous execution
  }
  const uint32_t cap = static_cast<uint32_t>(std::min<int64_t>(n, 16 * 64));
  for (int64_t i = 0; i < n; ++i) {
    auto& in = body[i];
    const int64_t pos = start + i;
    for (unsigned s = 0; s < in.num_src; ++s) {
      const int64_t want = rng.geometric(ph.mean_distance, cap);
      int64_t best_err = INT64_MAX;
      uint16_t best = static_cast<uint16_t>(ph.lo);  // nothing written in the range yet: an input
      for (uint32_t r = ph.lo; r <= ph.hi; ++r) {
        if (last[r] == kNever) continue;
        const int64_t err = std::llabs((pos - last[r]) - want);
        if (err < best_err) best_err = err, best = static_cast<uint16_t>(r);
      }
      in.src[s] = best;
    }
    if (in.num_dst) last[in.dst[0]] = pos;
  }
  if (ph.loops) {
    std::vector<bool> written(last.size(), false);
    for (int64_t i = 0; i < n; ++i)
      if (body[i].num_dst) written[body[i].dst[0]] = true;
    for (size_t r = 0; r < last.size(); ++r)
      if (!written[r]) last[r] = before[r];
  }
}

// Renumbers logical registers so that the body's first-use order is the one
// the profile asks for (its "declaration order differs from first use").
void apply_first_use_order(KernelBody& body, const KernelProfile& p, uint32_t regs, SplitMix64& rng) {
  std::vector<uint16_t> target;  // architectural registers, in first-use order
  std::vector<bool> listed(regs, false);
  switch (p.first_use) {
    case FirstUseOrder::Ascending:
      for (uint32_t r = 0; r < regs; ++r) target.push_back(static_cast<uint16_t>(r));
      break;
    case FirstUseOrder::Descending:
      for (uint32_t r = regs; r-- > 0;) target.push_back(static_cast<uint16_t>(r));
      break;
    case FirstUseOrder::Shuffled:
      for (uint32_t r = 0; r < regs; ++r) target.push_back(static_cast<uint16_t>(r));
      for (uint32_t r = regs; r > 1; --r) std::swap(target[r - 1], target[rng.below(r)]);
      break;
    case FirstUseOrder::Explicit:
      for (uint16_t r : p.first_use_list)
        if (r < regs) target.push_back(r), listed[r] = true;  // an override may drop high registers
      for (uint32_t r = 0; r < regs; ++r)
        if (!listed[r]) target.push_back(static_cast<uint16_t>(r));
      break;
  }
  std::vector<uint16_t> used = first_use_order(body);
  std::vector<bool> seen(regs, false);
  for (uint16_t r : used) seen[r] = true;
  for (uint32_t r = 0; r < regs; ++r)
    if (!seen[r]) used.push_back(static_cast<uint16_t>(r));
  std::vector<uint16_t> map(regs);
  for (uint32_t k = 0; k < regs; ++k) map[used[k]] = target[k];
  for (auto& in : body) {
    for (unsigned d = 0; d < in.num_dst; ++d) in.dst[d] = map[in.dst[d]];
    for (unsigned s = 0; s < in.num_src; ++s) in.src[s] = map[in.src[s]];
  }
}

// A phase's register range for `regs` registers when the profile declares
// `declared`: scaled, so a --regs-per-thread override keeps the phases' shares.
std::pair<uint32_t, uint32_t> scaled_range(uint32_t lo, uint32_t hi, uint32_t declared, uint32_t regs) {
  if (declared == regs) return {lo, hi};
  const uint32_t first = static_cast<uint32_t>(uint64_t{lo} * regs / declared);
  const uint32_t end = static_cast<uint32_t>((uint64_t{hi + 1} * regs + declared - 1) / declared);
  return {std::min(first, regs - 1), std::max(first, std::min(end, regs) - 1)};
}

// Appends one phase's code to `body`: its instruction classes exactly
// apportioned and shuffled, operand counts and divergence drawn, then its
// destinations and sources.
void build_phase(KernelBody& body, const KernelProfile& p, const PhaseSpec& ph, std::vector<int64_t>& last,
                 SplitMix64& rng) {
  const uint32_t first = static_cast<uint32_t>(body.size());
  const uint32_t n = ph.instructions;
  const auto counts = apportion(*ph.mix, n);
  for (unsigned c = 0; c < kNumMixClasses; ++c)
    for (uint32_t k = 0; k < counts[c]; ++k) {
      BodyInstruction in;
      in.op = to_op_class(static_cast<MixClass>(c));
      body.push_back(in);
    }
  BodyInstruction* code = body.data() + first;
  for (uint32_t i = n; i > 1; --i) std::swap(code[i - 1], code[rng.below(i)]);  // Fisher-Yates

  const uint32_t lanes_mask =
      p.divergent_active_lanes >= kWarpLanes ? 0xFFFFFFFFu : (1u << p.divergent_active_lanes) - 1;
  for (uint32_t i = 0; i < n; ++i) {
    auto& in = code[i];
    in.num_dst = static_cast<uint8_t>(dst_count(in.op));
    in.num_src = static_cast<uint8_t>(src_count(in.op, rng.uniform() < wide_probability(in.op)));
    in.active_mask = rng.uniform() < p.divergent_fraction ? lanes_mask : 0xFFFFFFFFu;
  }
  assign_destinations(code, n, ph, rng);
  assign_sources(code, first, n, ph, last, rng);
}

}  // namespace

KernelCode build_kernel_code(const KernelProfile& p, uint32_t regs) {
  SplitMix64 rng(stream_seed(p.seed, 0xB0D1, 0));
  KernelCode code;
  std::vector<int64_t> last(regs, kNever);
  if (p.phases.empty()) {
    const PhaseSpec flat{&p.mix, body_length(p, regs), true, p.mean_dependence_distance, 0, regs - 1,
                         std::min(p.hot_registers, regs), p.hot_fraction};
    code.body.reserve(flat.instructions);
    build_phase(code.body, p, flat, last, rng);
    code.phases.push_back({0, flat.instructions, 0, false, 0, regs - 1});
  } else {
    const uint32_t declared = p.resources.regs_per_thread;
    for (const ProfilePhase& ph : p.phases) {
      const auto [lo, hi] = scaled_range(ph.first_register, ph.last_register, declared, regs);
      const PhaseSpec spec{&ph.mix, ph.instructions, ph.repeat > 1, ph.mean_dependence_distance, lo, hi,
                           std::min(ph.hot_registers, hi - lo + 1), ph.hot_fraction};
      const uint32_t first = static_cast<uint32_t>(code.body.size());
      build_phase(code.body, p, spec, last, rng);
      code.phases.push_back({first, ph.instructions, ph.repeat, ph.barrier_after, lo, hi});
    }
  }
  apply_first_use_order(code.body, p, regs, rng);
  return code;
}

std::vector<uint16_t> first_use_order(const KernelBody& body) {
  std::vector<uint16_t> order;
  std::vector<bool> seen(kMaxArchRegs, false);
  auto touch = [&](uint16_t r) {
    if (r != kNoReg && !seen[r]) seen[r] = true, order.push_back(r);
  };
  for (const auto& in : body) {
    for (unsigned s = 0; s < in.num_src; ++s) touch(in.src[s]);
    for (unsigned d = 0; d < in.num_dst; ++d) touch(in.dst[d]);
  }
  return order;
}

namespace {

// Renumbers so that order[k] becomes Rk; registers not in `order` (never
// touched) keep their relative order above them.
void renumber_registers(KernelBody& body, const std::vector<uint16_t>& order, uint32_t regs) {
  std::vector<uint16_t> map(regs, kNoReg);
  uint16_t next = 0;
  for (uint16_t r : order) map[r] = next++;
  for (uint32_t r = 0; r < regs; ++r)
    if (map[r] == kNoReg) map[r] = next++;
  for (auto& in : body) {
    for (unsigned d = 0; d < in.num_dst; ++d) in.dst[d] = map[in.dst[d]];
    for (unsigned s = 0; s < in.num_src; ++s) in.src[s] = map[in.src[s]];
  }
}

}  // namespace

void reorder_registers_by_first_use(KernelBody& body, uint32_t regs) {
  renumber_registers(body, first_use_order(body), regs);
}

std::vector<uint16_t> reference_weight_order(const KernelBody& body) {
  std::vector<uint32_t> weight(kMaxArchRegs, 0);
  for (const auto& in : body) {
    for (unsigned s = 0; s < in.num_src; ++s)
      if (in.src[s] != kNoReg) ++weight[in.src[s]];
    for (unsigned d = 0; d < in.num_dst; ++d)
      if (in.dst[d] != kNoReg) ++weight[in.dst[d]];
  }
  std::vector<uint16_t> order = first_use_order(body);  // stable sort: ties stay in first-use order
  std::stable_sort(order.begin(), order.end(), [&](uint16_t a, uint16_t b) { return weight[a] > weight[b]; });
  return order;
}

void reorder_registers_by_weight(KernelBody& body, uint32_t regs) {
  renumber_registers(body, reference_weight_order(body), regs);
}

std::vector<std::bitset<kMaxArchRegs>> phase_registers(const KernelCode& code) {
  using Registers = std::bitset<kMaxArchRegs>;
  const size_t n = code.phases.size();
  std::vector<Registers> read(n), written(n);
  for (size_t p = 0; p < n; ++p) {
    const PhaseCode& ph = code.phases[p];
    for (uint32_t i = ph.first; i < ph.first + ph.size; ++i) {
      const BodyInstruction& in = code.body[i];
      for (unsigned s = 0; s < in.num_src; ++s)
        if (in.src[s] != kNoReg) read[p].set(in.src[s]);
      for (unsigned d = 0; d < in.num_dst; ++d)
        if (in.dst[d] != kNoReg) written[p].set(in.dst[d]);
    }
  }
  std::vector<Registers> read_later(n);  // read by a phase after p
  for (size_t p = n; p-- > 1;) read_later[p - 1] = read_later[p] | read[p];
  std::vector<Registers> held(n);
  Registers written_earlier;  // written by a phase before p
  for (size_t p = 0; p < n; ++p) {
    held[p] = read[p] | written[p] | (written_earlier & read_later[p]);
    written_earlier |= written[p];
  }
  return held;
}

}  // namespace smshare
