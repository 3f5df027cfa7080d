// Memory answers the SM takes at another time than it asks, on one SmCore:
//  - deferred responses (dram.scheduler: frfcfs): the port answers every
//    read GlobalMemoryPort::kDeferred and decides it `decision_delay` cycles
//    after it left (one cycle before its data is back unless a case says
//    otherwise);
//  - answers after the tick (SMs ticked on host threads): the port answers
//    every access the SM allows it to kLater, and the SM takes the answers
//    (SmCore::apply_later_answers) after its tick, as the GPU's clock gives
//    them once the cycle's requests are booked in SM order;
//  - both: after the tick, every read's answer kDeferred, decided later.
// The data is back `latency` cycles after it left. The run must then be the
// one a port answering at once gives (for the third, the one deferred
// responses give): the same requests in the same cycles,
// the same MSHR stalls, pending hits and instruction-cache merges, the same
// last cycle. Each case runs one script both ways.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "../common/fixed_latency_memory.hpp"
#include "../common/scripted_kernel.hpp"
#include "../common/compact_gtx480.hpp"
#include "hw/common/gpu_config.hpp"
#include "hw/common/instruction.hpp"
#include "hw/common/slot_pool.hpp"
#include "hw/frontend/cta_dispatcher.hpp"
#include "hw/sharing/registry.hpp"
#include "hw/sm/sm_core.hpp"

namespace smshare {
namespace {

constexpr uint64_t kLatency = 200;
constexpr uint64_t kLine = 0x10000000;

// Defers every read; writes come back `latency` later at once.
struct DeferringMemory : GlobalMemoryPort {
  struct Read {
    uint64_t token;
    uint64_t cycle;
  };
  explicit DeferringMemory(uint64_t latency) : fixed(latency) {}
  uint64_t access(uint64_t line_addr, ChunkMask chunks, bool is_write, uint64_t cycle, uint64_t token) override {
    fixed.access(line_addr, chunks, is_write, cycle, token);  // the record of what left when
    if (is_write) return cycle + fixed.latency;
    reads.push_back({token, cycle});
    return kDeferred;
  }
  tb::FixedLatencyMemory fixed;
  std::vector<Read> reads;
  size_t decided = 0;
  uint64_t decision_delay = 0;  // from a read leaving to its decision, in cycles
};

// Answers every access it may after the tick: `answers` holds the tick's,
// in the order asked. With `decider`, its answers are the decider's
// (kDeferred for every read, decided later).
struct AfterTheTickMemory : GlobalMemoryPort {
  explicit AfterTheTickMemory(uint64_t latency, GlobalMemoryPort* decider = nullptr)
      : fixed(latency), answerer(decider ? *decider : fixed) {}
  uint64_t access(uint64_t line_addr, ChunkMask chunks, bool is_write, uint64_t cycle, uint64_t token) override {
    return answerer.access(line_addr, chunks, is_write, cycle, token);
  }
  uint64_t access_or_later(uint64_t line_addr, ChunkMask chunks, bool is_write, uint64_t cycle,
                           uint64_t token) override {
    answers.push_back(answerer.access(line_addr, chunks, is_write, cycle, token));
    return kLater;
  }
  tb::FixedLatencyMemory fixed;
  GlobalMemoryPort& answerer;
  std::vector<uint64_t> answers;
};

// AfterTheTickDeferred: after the tick, and deferred (FR-FCFS on the threads).
enum class Answers { AtOnce, Deferred, AfterTheTick, AfterTheTickDeferred };

// The order in which results reach the register file, which the SM's
// statistics do not show: each destination as its bank takes it. (The
// hooks are called only when the gate is not inert: the gate lets every
// warp through, as the baseline's does.)
struct Write {
  uint64_t cycle;
  uint32_t warp;
  uint16_t reg;
  bool operator==(const Write& o) const { return cycle == o.cycle && warp == o.warp && reg == o.reg; }
};
struct OpenGate : WarpGate {
  bool may_issue(const WarpContext&, const WarpInstruction&, uint64_t) override { return true; }
};
struct WriteRecorder : MechanismHooks {
  explicit WriteRecorder(std::vector<Write>& writes) : writes(writes) {}
  void begin_cycle(uint64_t c) override { cycle = c; }
  void register_written(const WarpContext& w, uint16_t reg) override { writes.push_back({cycle, w.slot, reg}); }
  std::vector<Write>& writes;
  uint64_t cycle = 0;
};

// A mechanism with memory traffic of its own, as Zorua's swap space: it
// wakes the SM every kEpoch cycles (Zorua's Algorithm 1 epochs) and when a
// warp's line is back. A warp waits for the next epoch, which reads a line
// for it (its registers swapped in), and then for that line; a warp that
// finishes reads one more line, which nobody waits for. It records the
// cycles it is woken in, which the SM's statistics do not show.
struct SwapLike {
  static constexpr uint64_t kEpoch = 1000;
  static constexpr uint64_t kSwapLine = 0x40000000;
  static constexpr uint64_t kNobody = 1ull << 32;  // a tag whose answer no warp waits for
  struct Warp {
    bool seen = false;  // the gate was asked about it
    bool sent = false;
    uint32_t undecided = 0;
    uint64_t ready = 0;
  };
  MechanismMemoryPort* port = nullptr;
  std::vector<Warp> warps = std::vector<Warp>(8);
  uint64_t now = 0;
  uint64_t next_epoch = kEpoch;
  std::vector<uint64_t> wakes;

  void read(uint32_t slot, uint64_t tag) {
    const uint64_t back = port->access(kSwapLine + 128 * slot, /*is_write=*/false, now, tag);
    if (tag == kNobody) return;
    if (back == MechanismMemoryPort::kDeferred)
      ++warps[slot].undecided;
    else
      warps[slot].ready = std::max(warps[slot].ready, back);
  }
  bool waits(const Warp& w, uint64_t cycle) const { return w.undecided > 0 || w.ready > cycle; }

  struct Gate : WarpGate {
    explicit Gate(SwapLike& m) : m(m) {}
    bool may_issue(const WarpContext& w, const WarpInstruction&, uint64_t cycle) override {
      m.now = cycle;
      Warp& x = m.warps.at(w.slot);
      x.seen = true;
      return x.sent && !m.waits(x, cycle);
    }
    SwapLike& m;
  };
  struct Hooks : MechanismHooks {
    explicit Hooks(SwapLike& m) : m(m) {}
    void begin_cycle(uint64_t cycle) override { m.now = cycle; }
    void bind_memory(MechanismMemoryPort& port) override { m.port = &port; }
    uint64_t next_wake() const override {
      uint64_t wake = m.next_epoch;
      for (const Warp& w : m.warps)
        if (w.undecided == 0 && w.ready > m.now) wake = std::min(wake, w.ready);
      return wake;
    }
    bool wake_ends_a_wait() const override { return true; }
    void at_wake(uint64_t cycle, const IssueActivity&) override {
      m.now = cycle;
      m.wakes.push_back(cycle);
      if (cycle < m.next_epoch) return;
      while (m.next_epoch <= cycle) m.next_epoch += kEpoch;
      for (uint32_t slot = 0; slot < m.warps.size(); ++slot) {
        Warp& w = m.warps[slot];
        if (w.seen && !w.sent) {
          w.sent = true;
          m.read(slot, slot);
        }
      }
    }
    bool waits_on_memory(uint64_t cycle) const override {
      return std::any_of(m.warps.begin(), m.warps.end(), [&](const Warp& w) { return m.waits(w, cycle); });
    }
    void memory_response(uint64_t tag, uint64_t cycle) override {
      if (tag == kNobody) return;
      Warp& w = m.warps.at(tag);
      --w.undecided;
      w.ready = std::max(w.ready, cycle);
    }
    void warp_finished(const WarpContext& w) override { m.read(w.slot, kNobody); }
    SwapLike& m;
  };
};

struct SmRun {
  SmRun(std::vector<std::string> overrides, uint32_t warps, tb::ScriptedKernel::Script script, Answers answers,
        uint64_t decision_delay = kLatency - 1, uint64_t latency = kLatency, bool record_writes = false,
        SwapLike* swap_like = nullptr)
      : spec(load_gpu_config("fermi-gtx480", tb::compact_gtx480(std::move(overrides)))),
        kernel("script", resources(warps), std::move(script)),
        fixed(latency),
        deferring(latency),
        after_the_tick(latency),
        after_the_tick_deferred(latency, &deferring),
        core(0, spec, port(answers)) {
    deferring.decision_delay = decision_delay;
    Mechanism baseline = mechanism_registry().configure({}).make(spec.sm, kernel.resources(), "test");
    if (record_writes) {
      baseline.gate = std::make_unique<OpenGate>();
      baseline.hooks = std::make_unique<WriteRecorder>(writes);
    }
    if (swap_like) {
      baseline.gate = std::make_unique<SwapLike::Gate>(*swap_like);
      baseline.hooks = std::make_unique<SwapLike::Hooks>(*swap_like);
    }
    core.begin_kernel(kernel, std::move(baseline), dispatcher);
    EXPECT_TRUE(core.launch_one_cta());
    // The GPU's clock in small: decisions due in a cycle go first, then the
    // SM ticks if it is due and takes the answers it left for after its tick.
    std::vector<uint64_t>& later =
        (answers == Answers::AfterTheTickDeferred ? after_the_tick_deferred : after_the_tick).answers;
    uint64_t due = 0;
    const auto wake = [&due](uint64_t cycle) { due = due >= SmCore::kAwaitMemory ? cycle : std::min(due, cycle); };
    for (int guard = 0; guard < 100000; ++guard) {
      uint64_t next = due >= SmCore::kAwaitMemory ? SmCore::kNever : due;
      if (deferring.decided < deferring.reads.size())
        next = std::min(next, deferring.reads[deferring.decided].cycle + deferring.decision_delay);
      if (next == SmCore::kNever) break;
      for (; deferring.decided < deferring.reads.size(); ++deferring.decided) {
        const DeferringMemory::Read& r = deferring.reads[deferring.decided];
        if (r.cycle + deferring.decision_delay > next) break;
        wake(core.memory_response(r.token, r.cycle + latency));
      }
      if (due != next) continue;
      due = core.tick(next);
      if (later.empty()) continue;
      later_answers += later.size();
      wake(core.apply_later_answers(later.data(), later.size()));
      later.clear();
    }
    EXPECT_EQ(due, SmCore::kNever);
    EXPECT_FALSE(core.deadlocked());
  }
  GlobalMemoryPort& port(Answers answers) {
    switch (answers) {
      case Answers::Deferred:
        return deferring;
      case Answers::AfterTheTick:
        return after_the_tick;
      case Answers::AfterTheTickDeferred:
        return after_the_tick_deferred;
      case Answers::AtOnce:
        break;
    }
    return fixed;
  }
  static KernelResources resources(uint32_t warps) {
    KernelResources r = tb::single_warp_grid();
    r.threads_per_cta = 32 * warps;
    return r;
  }
  const std::vector<tb::FixedLatencyMemory::Request>& requests() const {
    if (!deferring.fixed.requests.empty()) return deferring.fixed.requests;
    if (!after_the_tick.fixed.requests.empty()) return after_the_tick.fixed.requests;
    return fixed.requests;
  }

  GpuSpec spec;
  tb::ScriptedKernel kernel;
  tb::FixedLatencyMemory fixed;
  DeferringMemory deferring;
  AfterTheTickMemory after_the_tick;
  AfterTheTickMemory after_the_tick_deferred;  // its reads decided by `deferring`
  size_t later_answers = 0;  // the answers the SM took after its ticks
  std::vector<Write> writes;  // with record_writes
  SmCore core;
  CtaDispatcher dispatcher{1};
};

void expect_same_run(const SmRun& fixed, const SmRun& deferred) {
  ASSERT_EQ(fixed.requests().size(), deferred.requests().size());
  for (size_t i = 0; i < fixed.requests().size(); ++i) {
    EXPECT_EQ(fixed.requests()[i].cycle, deferred.requests()[i].cycle) << "request " << i;
    EXPECT_EQ(fixed.requests()[i].line, deferred.requests()[i].line) << "request " << i;
  }
  const SmStats a = fixed.core.stats(), b = deferred.core.stats();
  EXPECT_EQ(a.last_cycle, b.last_cycle);
  EXPECT_EQ(a.warp_instructions, b.warp_instructions);
  EXPECT_EQ(a.l1_mshr_stall_cycles, b.l1_mshr_stall_cycles);
  EXPECT_EQ(a.l1_pending_hits, b.l1_pending_hits);
  EXPECT_EQ(a.icache_misses, b.icache_misses);
  EXPECT_EQ(a.icache_pending_hits, b.icache_pending_hits);
  EXPECT_EQ(a.idle_cycles, b.idle_cycles);
  EXPECT_EQ(a.reason_cycles, b.reason_cycles);
  ASSERT_EQ(fixed.writes.size(), deferred.writes.size());
  for (size_t i = 0; i < fixed.writes.size(); ++i) {
    const Write &x = fixed.writes[i], &y = deferred.writes[i];
    EXPECT_TRUE(x == y) << "write " << i << ": cycle " << x.cycle << " warp " << x.warp << " r" << x.reg
                        << " against cycle " << y.cycle << " warp " << y.warp << " r" << y.reg;
  }
}

TEST(DeferredResponses, ALoadCompletesWhenItsLastLineIsDecided) {
  // One load of two lines (lanes 128 B apart in two halves) and a dependent add.
  auto script = [](uint32_t, uint32_t) {
    WarpInstruction load = tb::mem(OpClass::GlobalLoad, 1, kLine, 8);  // 32 lanes x 8 B: two lines
    return std::vector<WarpInstruction>{load, tb::alu(2, {1})};
  };
  const SmRun fixed({"gpu.num_sms=1"}, 1, script, Answers::AtOnce);
  const SmRun deferred({"gpu.num_sms=1"}, 1, script, Answers::Deferred);
  EXPECT_EQ(deferred.deferring.reads.size(), 2u);
  expect_same_run(fixed, deferred);
}

TEST(DeferredResponses, AReadDecidedWhileItsLoadStillSendsLinesCounts) {
  // Two scattered loads (32 lanes 128 B apart: 32 lines, one sent per
  // cycle); every read is decided the cycle after it left. The first loads
  // lines 1..32; the second lines 0..31: its line 0 misses, and its read is
  // decided while the LDST unit still looks up lines 1..31, which hit (or
  // pending-hit fills already decided) and send nothing, so that read's name
  // is not reused. The load must complete when that read's data is back, as
  // with the answer known at once (it used to wait for the answered read
  // forever: a false deadlock).
  auto script = [](uint32_t, uint32_t) {
    return std::vector<WarpInstruction>{tb::mem(OpClass::GlobalLoad, 1, kLine + 128, 128),
                                        tb::mem(OpClass::GlobalLoad, 2, kLine, 128), tb::alu(3, {2})};
  };
  const SmRun fixed({"gpu.num_sms=1"}, 1, script, Answers::AtOnce);
  const SmRun deferred({"gpu.num_sms=1"}, 1, script, Answers::Deferred, /*decision_delay=*/1);
  EXPECT_EQ(deferred.deferring.reads.size(), 33u);
  EXPECT_EQ(deferred.core.stats().warp_instructions, 3u);
  expect_same_run(fixed, deferred);
}

TEST(DeferredResponses, AnL1PendingHitWaitsForTheUndecidedFill) {
  // Two warps load the same line: the second merges with the first's fill.
  auto script = [](uint32_t, uint32_t) {
    return std::vector<WarpInstruction>{tb::mem(OpClass::GlobalLoad, 1, kLine, 4), tb::alu(2, {1})};
  };
  const SmRun fixed({"gpu.num_sms=1"}, 2, script, Answers::AtOnce);
  const SmRun deferred({"gpu.num_sms=1"}, 2, script, Answers::Deferred);
  EXPECT_EQ(deferred.deferring.reads.size(), 1u);
  EXPECT_EQ(deferred.core.stats().l1_pending_hits, 1u);
  expect_same_run(fixed, deferred);
}

TEST(DeferredResponses, AMissWaitingForAnMshrLeavesWhenTheFirstFillIsBack) {
  // Three loads of three lines with two L1 MSHRs: the third waits for an
  // MSHR whose release is undecided when it stalls, then leaves when the
  // first fill is back (first + 200), as with the answer known at once.
  auto script = [](uint32_t, uint32_t) {
    return std::vector<WarpInstruction>{tb::mem(OpClass::GlobalLoad, 1, kLine, 4),
                                        tb::mem(OpClass::GlobalLoad, 2, kLine + 128, 4),
                                        tb::mem(OpClass::GlobalLoad, 3, kLine + 256, 4)};
  };
  const SmRun fixed({"gpu.num_sms=1", "l1.mshr_entries=2"}, 1, script, Answers::AtOnce);
  const SmRun deferred({"gpu.num_sms=1", "l1.mshr_entries=2"}, 1, script, Answers::Deferred);
  ASSERT_EQ(deferred.requests().size(), 3u);
  EXPECT_EQ(deferred.requests()[2].cycle, deferred.requests()[0].cycle + kLatency);
  EXPECT_GT(deferred.core.stats().l1_mshr_stall_cycles, 0u);
  expect_same_run(fixed, deferred);
}

TEST(DeferredResponses, InstructionFetchesMergeWithAnUndecidedLineFill) {
  // Two warps run the same code, NOPs over two 128 B lines: the second
  // warp's fetches merge with the first's line reads.
  auto script = [](uint32_t, uint32_t) {
    std::vector<WarpInstruction> code;
    for (uint64_t pc = 0; pc < 256; pc += 8) {
      WarpInstruction i;
      i.op = OpClass::IntAlu;
      i.pc = pc;
      code.push_back(i);
    }
    return code;
  };
  const std::vector<std::string> icache = {"gpu.num_sms=1", "icache.size_bytes=4096"};
  const SmRun fixed(icache, 2, script, Answers::AtOnce);
  const SmRun deferred(icache, 2, script, Answers::Deferred);
  EXPECT_EQ(deferred.deferring.reads.size(), 2u);
  EXPECT_GT(deferred.core.stats().icache_pending_hits, 0u);
  expect_same_run(fixed, deferred);
}

TEST(AnswersAfterTheTick, GiveTheRunOfAnswersAtOnce) {
  // Four warps, each a load, independent adds, then adds on the load's
  // data, over a range of memory latencies. At 4 cycles (an add's latency)
  // a load's result reaches writeback in the cycle of an add dispatched in
  // the tick the load's line left. The load finished first in that tick (its
  // completion took the lower seq), so with its answer known at once it is
  // written first; its completion, pushed only after the tick, must keep
  // that place (CalendarQueue::push_out_of_seq_order). The order of the
  // writes shows it (pushed in the order it came, the case fails).
  auto script = [](uint32_t, uint32_t warp) {
    std::vector<WarpInstruction> code{tb::mem(OpClass::GlobalLoad, 1, kLine + 128 * warp, 4)};
    for (uint16_t r = 2; r < 10; ++r) code.push_back(tb::alu(r, {0}));
    for (uint16_t r = 10; r < 14; ++r) code.push_back(tb::alu(r, {1}));
    return code;
  };
  size_t later_answers = 0;
  for (uint64_t latency = 1; latency <= 48; ++latency) {
    SCOPED_TRACE("memory latency " + std::to_string(latency));
    const SmRun at_once({"gpu.num_sms=1"}, 4, script, Answers::AtOnce, 0, latency, /*record_writes=*/true);
    const SmRun after({"gpu.num_sms=1"}, 4, script, Answers::AfterTheTick, 0, latency, /*record_writes=*/true);
    later_answers += after.later_answers;
    EXPECT_EQ(at_once.writes.size(), 4u * 13);
    expect_same_run(at_once, after);
    // Under FR-FCFS, each line's read deferred after the tick too.
    const SmRun deferred({"gpu.num_sms=1"}, 4, script, Answers::Deferred, latency / 2, latency, true);
    const SmRun after_deferred({"gpu.num_sms=1"}, 4, script, Answers::AfterTheTickDeferred, latency / 2, latency,
                               true);
    EXPECT_EQ(after_deferred.deferring.reads.size(), 4u);
    expect_same_run(deferred, after_deferred);
  }
  EXPECT_EQ(later_answers, 48u * 4);  // each load's one line, answered after its tick
}

TEST(AnswersAfterTheTick, ReachAMechanismAsItsAnswersAtOnceDo) {
  // A mechanism's own reads answered after the tick (SwapLike). The epoch's
  // tick reads the warps' lines and moves nothing else: the SM must wake
  // when the lines are back, as the mechanism's next_wake said at once
  // (asked again after the answers: the tick asked it before them). The
  // last warp's finishing read is answered after the tick that retired it,
  // which returned "no more work": that answer must not wake the SM again
  // (at the next epoch), as it does not at once. The cycles the mechanism
  // is woken in show both.
  auto script = [](uint32_t, uint32_t warp) {
    std::vector<WarpInstruction> code;
    for (uint16_t r = 1; r < 4 + 3 * warp; ++r) code.push_back(tb::alu(r, {0}));
    return code;
  };
  size_t later_answers = 0;
  for (uint64_t latency : {1, 4, 50, 200, 999, 1000, 1500}) {
    SCOPED_TRACE("memory latency " + std::to_string(latency));
    SwapLike at_once_swap, after_swap;
    const SmRun at_once({"gpu.num_sms=1"}, 3, script, Answers::AtOnce, 0, latency, false, &at_once_swap);
    const SmRun after({"gpu.num_sms=1"}, 3, script, Answers::AfterTheTick, 0, latency, false, &after_swap);
    later_answers += after.later_answers;
    EXPECT_EQ(at_once.requests().size(), 6u);  // a read for each warp's first instruction and end
    EXPECT_EQ(at_once.core.stats().warp_instructions, 3u + 6 + 9);
    EXPECT_EQ(at_once_swap.wakes, after_swap.wakes);
    // The first epoch's, then the lines' back (and epochs on the way).
    ASSERT_GE(at_once_swap.wakes.size(), 2u);
    EXPECT_EQ(at_once_swap.wakes[0], SwapLike::kEpoch);
    EXPECT_EQ(at_once_swap.wakes[1], std::min(SwapLike::kEpoch + latency, 2 * SwapLike::kEpoch));
    expect_same_run(at_once, after);
    // Under FR-FCFS: the answer after the tick is "deferred", and the
    // decision reaches the mechanism as it does when the SM is told at once.
    SwapLike deferred_swap, after_deferred_swap;
    const SmRun deferred({"gpu.num_sms=1"}, 3, script, Answers::Deferred, latency / 2, latency, false,
                         &deferred_swap);
    const SmRun after_deferred({"gpu.num_sms=1"}, 3, script, Answers::AfterTheTickDeferred, latency / 2, latency,
                               false, &after_deferred_swap);
    EXPECT_EQ(after_deferred.deferring.reads.size(), 6u);
    EXPECT_EQ(deferred_swap.wakes, after_deferred_swap.wakes);
    expect_same_run(deferred, after_deferred);
    later_answers += after_deferred.later_answers;
  }
  EXPECT_EQ(later_answers, 7u * 6 * 2);
}

TEST(SlotPool, AnUndecidedHoldBlocksUntilItsReleaseIsKnown) {
  SlotPool f(1);
  f.hold_undecided();
  EXPECT_EQ(f.free_at(5), SlotPool::kUndecided);
  EXPECT_EQ(f.held(5), 1u);
  f.decide(40);
  EXPECT_EQ(f.free_at(6), 40u);
  EXPECT_EQ(f.free_at(40), 40u);
  EXPECT_EQ(f.held(40), 0u);
}

}  // namespace
}  // namespace smshare
