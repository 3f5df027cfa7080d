#include "hw/frontend/kernel_body.hpp"

#include <algorithm>
#include <cmath>
#include <cstdlib>

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
std::array<uint32_t, kNumMixClasses> apportion(const KernelProfile& p, uint32_t n) {
  std::array<uint32_t, kNumMixClasses> count{};
  std::array<double, kNumMixClasses> rest{};
  uint32_t given = 0;
  for (unsigned c = 0; c < kNumMixClasses; ++c) {
    const double exact = p.mix[c] * n;
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

// Destinations in logical register ids: 0..hot-1 are the hot set, the rest
// cold. Cold registers are visited round-robin, and any register still
// unwritten takes over a hot destination slot (evenly spread), so that every
// register the kernel declares is used, as ptxas would never allocate a
// register nobody touches.
void assign_destinations(KernelBody& body, const KernelProfile& p, uint32_t regs, SplitMix64& rng) {
  const uint32_t hot = std::min(p.hot_registers, regs);
  const uint32_t cold = regs - hot;
  uint32_t next_cold = 0, cold_written = 0;
  std::vector<uint32_t> hot_slots;
  for (uint32_t i = 0; i < body.size(); ++i) {
    auto& in = body[i];
    if (!in.num_dst) continue;
    if (cold == 0 || rng.uniform() < p.hot_fraction) {
      in.dst[0] = static_cast<uint16_t>(rng.below(hot));
      hot_slots.push_back(i);
    } else {
      in.dst[0] = static_cast<uint16_t>(hot + next_cold);
      next_cold = (next_cold + 1) % cold;
      ++cold_written;
    }
  }
  const uint32_t missing = cold > cold_written ? cold - cold_written : 0;
  const uint32_t take = std::min<uint32_t>(missing, static_cast<uint32_t>(hot_slots.size()));
  for (uint32_t j = 0; j < take; ++j)
    body[hot_slots[uint64_t{j} * hot_slots.size() / take]].dst[0] = static_cast<uint16_t>(hot + cold_written + j);
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

// Sources: draw a dependence distance d (geometric, the profile's mean) and
// read the live value whose producer is nearest d instructions back. The
// body is a loop, so distances wrap: the first instructions read values the
// previous iteration produced. Choosing among live values (rather than "the
// register written at i-d", which a later write may have overwritten) keeps
// the distance a consumer actually sees close to the one drawn.
void assign_sources(KernelBody& body, const KernelProfile& p, uint32_t regs, SplitMix64& rng) {
  const int64_t n = static_cast<int64_t>(body.size());
  constexpr int64_t kNever = INT64_MIN / 2;
  std::vector<int64_t> last(regs, kNever);  // position of the latest write before i
  for (int64_t i = 0; i < n; ++i)
    if (body[i].num_dst) last[body[i].dst[0]] = i - n;  // writes of the previous iteration
  const uint32_t cap = static_cast<uint32_t>(std::min<int64_t>(n, 16 * 64));
  for (int64_t i = 0; i < n; ++i) {
    auto& in = body[i];
    for (unsigned s = 0; s < in.num_src; ++s) {
      const int64_t want = rng.geometric(p.mean_dependence_distance, cap);
      int64_t best_err = INT64_MAX;
      uint16_t best = 0;
      for (uint32_t r = 0; r < regs; ++r) {
        if (last[r] == kNever) continue;
        const int64_t err = std::llabs((i - last[r]) - want);
        if (err < best_err) best_err = err, best = static_cast<uint16_t>(r);
      }
      in.src[s] = best;  // a body with no writes at all reads R0 (an input)
    }
    if (in.num_dst) last[in.dst[0]] = i;
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

}  // namespace

KernelBody build_kernel_body(const KernelProfile& p, uint32_t regs) {
  SplitMix64 rng(stream_seed(p.seed, 0xB0D1, 0));
  const uint32_t n = body_length(p, regs);
  KernelBody body;
  body.reserve(n);
  const auto counts = apportion(p, n);
  for (unsigned c = 0; c < kNumMixClasses; ++c)
    for (uint32_t k = 0; k < counts[c]; ++k) {
      BodyInstruction in;
      in.op = to_op_class(static_cast<MixClass>(c));
      body.push_back(in);
    }
  for (uint32_t i = n; i > 1; --i) std::swap(body[i - 1], body[rng.below(i)]);  // Fisher-Yates

  const uint32_t lanes_mask =
      p.divergent_active_lanes >= kWarpLanes ? 0xFFFFFFFFu : (1u << p.divergent_active_lanes) - 1;
  for (auto& in : body) {
    in.num_dst = static_cast<uint8_t>(dst_count(in.op));
    in.num_src = static_cast<uint8_t>(src_count(in.op, rng.uniform() < wide_probability(in.op)));
    in.active_mask = rng.uniform() < p.divergent_fraction ? lanes_mask : 0xFFFFFFFFu;
  }
  assign_destinations(body, p, regs, rng);
  assign_sources(body, p, regs, rng);
  apply_first_use_order(body, p, regs, rng);
  return body;
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

void reorder_registers_by_first_use(KernelBody& body, uint32_t regs) {
  std::vector<uint16_t> order = first_use_order(body);
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

}  // namespace smshare
