#include "hw/top/gpu_module.hpp"

#include <algorithm>
#include <stdexcept>
#include <string>

#include "hw/mem/ps_time.hpp"

namespace smshare {

GpuModule::GpuModule(sc_core::sc_module_name name, const GpuSpec& spec, std::vector<KernelSource*> kernels,
                     ConfiguredMechanism mechanism, const std::string& kernel_origin, unsigned host_threads,
                     PaceMode host_threads_pace, bool run_ahead)
    : sc_module(name),
      spec_(spec),
      period_ps_(spec.core_period_ps()),
      mechanism_(std::move(mechanism)),
      kernel_origin_(kernel_origin) {
  for (KernelSource* k : kernels) {
    KernelRecord rec;
    rec.kernel = k;
    rec.occupancy = mechanism_.occupancy(spec.sm, k->resources(), kernel_origin);
    records_.push_back(rec);
    dispatchers_.push_back(std::make_unique<CtaDispatcher>(k->resources().grid_ctas));
  }
  cta_dispatcher_ = std::make_unique<CtaDispatcherModule>("cta_dispatcher");
  memory_ = std::make_unique<MemorySystem>("memory", spec);
  // The DRAM channels' queue depth is a waveform probe: trace() keeps it.
  memory_->keep_dram_queue_depth(false);
  sm_configs_.reserve(spec.num_sms);
  for (uint32_t i = 0; i < spec.num_sms; ++i) sm_configs_.push_back(mechanism_.configure_sm(spec, i));
  for (uint32_t i = 0; i < spec.num_sms; ++i) {
    const SmConfiguration& c = sm_configs_[i];
    auto sm = std::make_unique<SmModule>(
        ("sm" + std::to_string(i)).c_str(), i, c.spec,
        [this](uint32_t sm_id) {
          const SmConfiguration& own = sm_configs_[sm_id];
          return mechanism_.make_modules(own.spec.sm, sm_id, own.settings.get());
        },
        c.slots);
    sm->socket.bind(memory_->sm_socket(i));
    cores_.push_back(&sm->core());
    sms_.push_back(std::move(sm));
  }
  // Cross-SM sharing: an SM reaches its neighbour's register banks.
  for (uint32_t i = 0; i < spec.num_sms; ++i)
    if (sm_configs_[i].neighbour >= 0)
      sms_[i]->core().bank_arbitrator().attach_neighbour(
          sms_.at(static_cast<size_t>(sm_configs_[i].neighbour))->core().bank_arbitrator());
  due_.assign(spec.num_sms, SmCore::kNever);
  held_next_.assign(spec.num_sms, kNotHeld);  // read by the threads' cycles with run-ahead on or off
  if (host_threads > 1) start_host_threads(host_threads, host_threads_pace);
  if (run_ahead) run_ahead_turn_ = std::make_unique<RunAheadTurn>();
  // Kernel 0 is launched in start_of_simulation(); the clock runs from
  // time 0 and re-arms itself for the next cycle anything is due.
  SC_METHOD(clock_method);
}

GpuModule::~GpuModule() = default;

void GpuModule::start_host_threads(unsigned host_threads, PaceMode pace) {
  std::vector<int32_t> neighbours;
  for (const SmConfiguration& c : sm_configs_) neighbours.push_back(c.neighbour);
  units_ = tick_units(neighbours);
  // A thread beyond one per unit would have nothing to tick.
  host_threads = std::min<unsigned>(host_threads, static_cast<unsigned>(units_.size()));
  if (host_threads < 2) return;
  const auto n = static_cast<uint32_t>(sms_.size());
  unit_due_.assign(units_.size(), 0);
  next_due_.reset(new NextDue[n]);
  ticks_ = std::make_unique<ParallelTicks>(host_threads, n);
  pace_.set_mode(pace);
  for (uint32_t u = 0; u < units_.size(); ++u)
    for (uint32_t i = units_[u].first_sm; i <= units_[u].last_sm; ++i) unit_of_.push_back(u);
  // A call on the main thread for SM i (a request it needs answered at once)
  // comes after the requests the SMs up to i left for later.
  ticks_->before_main_calls([this](uint32_t sm) { book_later_requests_through(sm); });
  tick_unit_ = [this](const ParallelTicks::Unit& unit) {
    for (uint32_t i = unit.first_sm; i <= unit.last_sm; ++i) {
      // An SM held ahead ticked this cycle already: its requests are booked below.
      if (due_[i] == ticking_cycle_ && !held(i)) next_due_[i].cycle = cores_[i]->tick(ticking_cycle_);
      ticks_->finished(i);
    }
  };
}

void GpuModule::book_later_requests_through(uint32_t last_sm) {
  // An SM held ahead at a later cycle has left that cycle's requests: they
  // are booked in its turn there.
  for (uint32_t i = booked_through_; i <= last_sm; ++i)
    if (!held(i) || due_[i] == ticking_cycle_) sms_[i]->book_later_requests();
  booked_through_ = last_sm;  // SM last_sm may still leave more
}

GpuModule::DueAfterTicks GpuModule::tick_due_sms(uint64_t cycle) {
  const auto num_sms = static_cast<uint32_t>(sms_.size());  // read once: the ticks could change it for all the compiler knows
  uint32_t due_units = 0, due_sms = 0;
  DueAfterTicks after;
  // The units due are counted first only when the threads may tick the
  // cycle; one after another, the loop below counts them.
  const bool threads_may_tick = ticks_ && pace_.parallel();
  if (threads_may_tick) {
    // An SM held ahead in the cycle has no tick in it (its turn is the
    // booking of its requests, after the threads' ticks).
    for (size_t u = 0; u < units_.size(); ++u) {
      uint32_t ticks = 0;
      for (uint32_t i = units_[u].first_sm; i <= units_[u].last_sm; ++i) ticks += due_[i] == cycle && !held(i);
      unit_due_[u] = ticks > 0;
      due_units += ticks > 0;
      due_sms += ticks;
    }
  }
  if (due_units >= 2) {
    ticking_cycle_ = cycle;
    // The SMs' memory requests and shared state wait for their turns (tick_turn.hpp).
    for (uint32_t i = 0; i < num_sms; ++i)
      if (due_[i] == cycle) sms_[i]->set_tick_turn(ticks_.get());
    ticks_->run_cycle(units_, unit_due_, tick_unit_);
    for (uint32_t i = 0; i < num_sms; ++i)
      if (due_[i] == cycle) sms_[i]->set_tick_turn(nullptr);
    // The memory system books the cycle's requests in SM order, as ticking
    // the SMs one after another would have; then each SM takes its answers.
    book_later_requests_through(num_sms - 1);
    booked_through_ = 0;
    for (uint32_t i = 0; i < num_sms; ++i) {
      if (due_[i] == cycle) {
        if (held(i)) {  // as tick_window() takes its turn
          due_[i] = held_next_[i];
          held_next_[i] = kNotHeld;
        } else {
          due_[i] = next_due_[i].cycle;
        }
        const uint64_t answers_due = sms_[i]->apply_later_answers();
        if (answers_due != SmCore::kNever) wake(i, answers_due);
      }
      after.note(due_[i]);
    }
    pace_.record(due_sms);
    after.any_was_due = true;
    return after;
  }
  // The serial way runs windows; the threads' way, on a host where they are
  // faster, ticks a cycle at a time (windows take the SMs out of step: few
  // cycles would be left with work for several threads).
  const bool windows = !threads_may_tick;
  const uint64_t ticks_ahead_before = ticks_ahead_;
  due_units = due_sms = 0;
  uint32_t last_unit = ~0u;
  for (uint32_t i = 0; i < num_sms; ++i) {
    uint64_t due = due_[i];
    if (due == cycle) {
      after.any_was_due = true;
      if (ticks_ && !held(i)) {  // counted as the threads' way counts them
        ++due_sms;
        due_units += unit_of_[i] != last_unit;
        last_unit = unit_of_[i];
      }
      if (i + 1 < num_sms) cores_[i + 1]->prefetch_tick_state();
      due = due_[i] = kernel_runs_ahead_ ? tick_window(i, cycle, windows) : cores_[i]->tick(cycle);
    }
    after.note(due);
  }
  if (ticks_) {
    const uint64_t sm_ticks = due_sms + (ticks_ahead_ - ticks_ahead_before);
    if (due_units >= 2) pace_.record(sm_ticks);
    else pace_.add_ticks(sm_ticks);
  }
  return after;
}

uint64_t GpuModule::tick_window(uint32_t sm, uint64_t cycle, bool windows) {
  // An SM ticked ahead, in cycle t > `cycle`, gives the report it would
  // have given ticked in t's turn if nothing another SM does in between
  // reaches it:
  // - its memory requests wait, as on the host threads, to be booked when
  //   the clock is at t, in SM order among that cycle's (so the memory
  //   system sees every request in (cycle, SM) order); the window ends
  //   after such a tick and the SM takes the answers then;
  // - it takes no CTA while another SM could still take one first
  //   (may_take_a_cta());
  // - an undecided read of its own is answered by a DRAM decision
  //   delivered when the clock reaches the decision's cycle, never before
  //   the cycle of its channel's next decision now
  //   (MemoryTiming::next_decision_ps_for), so with one the window ends
  //   before that cycle (deliver_memory_responses checks it);
  // - runs_ahead_ok() rules out the rest: kernel-wide state, requests
  //   answered at once (more than one LDST line or fetch a cycle), and
  //   (checked at launch) borrowed register banks.
  SmModule& module = *sms_[sm];
  SmCore& core = *cores_[sm];
  uint64_t due;
  if (held(sm)) {  // it stopped ahead in this cycle: its requests' turn
    module.book_later_requests();
    due = std::min(held_next_[sm], module.apply_later_answers());
    held_next_[sm] = kNotHeld;
  } else {
    due = core.tick(cycle);
  }
  if (!windows) return due;
  // The window's end (exclusive): kAwaitMemory and kNever are not cycles.
  const uint64_t end = std::min(SmCore::kAwaitMemory, memory_cycle_of(memory_->timing().next_decision_ps_for(sm)));
  if (due >= end || core.may_take_a_cta()) return due;
  ++windows_ahead_;
  module.set_tick_turn(run_ahead_turn_.get());
  uint64_t t;
  do {
    t = due;
    due = core.tick(t);
    ++ticks_ahead_;
    if (module.has_later_requests()) break;
  } while (due < end && !core.may_take_a_cta());
  module.set_tick_turn(nullptr);
  // Requests to book in t's turn, or done: the clock must visit t (an SM's
  // last tick may end the kernel there: kernel_drained()). An SM asleep
  // until a deferred answer (kAwaitMemory) needs no visit: the answer comes
  // at `end` or later, where the clock goes anyway.
  if (module.has_later_requests() || due == SmCore::kNever) {
    held_next_[sm] = due;
    return t;
  }
  return due;
}

void GpuModule::clock_method() {
  // The GPU runs ahead of SystemC time (TLM-2.0's temporal decoupling): an
  // activation runs the cycles due in the next kCyclesAhead, the memory
  // system reading each request's cycle from its delay, as the SMs' sockets
  // give it; SystemC re-arming the method for every cycle cost more than a
  // tenth of the host instructions on the bench trace.
  const uint64_t first = now_cycle();
  for (uint64_t cycle = first;;) {
    const uint64_t next = run_cycle(cycle);
    if (next == SmCore::kNever) return;  // nothing left: the simulation ends
    if (next - first >= kCyclesAhead) {
      next_trigger(ps_time((next - first) * period_ps_, resolution_));
      return;
    }
    cycle = next;
  }
}

uint64_t GpuModule::run_cycle(uint64_t cycle) {
  if (cycle == launch_at_) {
    launch_at_ = SmCore::kNever;
    launch(next_kernel_, cycle);
  }
  if (wave_) follow_window(cycle);
  if (memory_->defers_responses()) deliver_memory_responses(cycle);
  const DueAfterTicks due = tick_due_sms(cycle);
  if (wave_) {
    // Every cycle the clock runs, inside the window or not: a "this cycle"
    // probe is the growth of a total since the previous call.
    for (StructureModule* m : traced_structures_) m->update_probes(cycle);
    wave_->sample(cycle);
  }
  if (due.any_was_due && due.all_asleep()) kernel_drained(cycle);
  if (cycle >= next_observation_) {  // an observer only reads the GPU: due_ is as the ticks left it
    next_observation_ = cycle + observe_period_;
    observer_(cycle);
  }
  uint64_t next = std::min(launch_at_, due.earliest());  // kernel_drained() may have set launch_at_
  // Most cycles end here: an SM is due in the next one, and nothing can be
  // due sooner (the memory system's next decision is at the next cycle's
  // lead or later, MemoryTiming; the waveform's window starts after `cycle`
  // if it starts later at all).
  if (next == cycle + 1) return next;
  if (memory_->defers_responses()) next = std::min(next, next_memory_cycle());
  if (next != SmCore::kNever && wave_ && cycle < wave_->first_cycle())
    next = std::min(next, wave_->first_cycle());  // the window's $dumpvars
  return next;
}

void GpuModule::deliver_memory_responses(uint64_t cycle) {
  // Every request made before `cycle` is in; those of `cycle` and later
  // reach a channel at cycle x period + lead or later, so decisions before
  // that time see every request that arrived by then (MemoryTiming).
  const uint64_t before = cycle * period_ps_ + memory_->timing().decision_lead_ps();
  // Most cycles have no decision due: nothing to take, and no sc_time to build.
  if (memory_->timing().next_decision_ps() >= before) return;
  responses_.clear();
  memory_->advance(ps_time(before, resolution_), responses_);
  for (const MemCompletion& c : responses_) {
    // Run-ahead's rule (tick_window()): no SM has ticked past an answer.
    if (kernel_runs_ahead_ && cores_[c.sm]->ticked_since(cycle))
      throw std::logic_error("sm" + std::to_string(c.sm) + " ticked ahead past the DRAM decision on its read delivered in cycle " +
                             std::to_string(cycle));
    wake(c.sm, sms_[c.sm]->memory_response(c.token, c.done_ps));
  }
}

void GpuModule::wake(uint32_t sm, uint64_t cycle) {
  uint64_t& due = due_[sm];
  due = due >= SmCore::kAwaitMemory ? cycle : std::min(due, cycle);
}

uint64_t GpuModule::next_memory_cycle() const { return memory_cycle_of(memory_->timing().next_decision_ps()); }

uint64_t GpuModule::memory_cycle_of(uint64_t t) const {
  // The first cycle whose deliver_memory_responses() takes a decision at `t`.
  if (t == MemoryTiming::kDeferred) return SmCore::kNever;
  const uint64_t lead = memory_->timing().decision_lead_ps();
  return t < lead ? 0 : (t - lead) / period_ps_ + 1;
}

uint64_t GpuModule::now_cycle() const { return sc_core::sc_time_stamp().value() / period_ps_; }

uint64_t GpuModule::end_cycle() const {
  uint64_t end = 0;
  for (const auto& sm : sms_) {
    const SmStats s = sm->core().stats();
    if (s.active_cycles) end = std::max(end, s.last_cycle + 1);
  }
  return end;
}

uint64_t GpuModule::total_warp_instructions() const {
  uint64_t n = 0;
  for (const auto& sm : sms_) n += sm->core().stats().warp_instructions;
  return n;
}

uint64_t GpuModule::total_ctas_completed() const {
  uint64_t n = 0;
  for (const auto& sm : sms_) n += sm->core().stats().ctas_completed;
  return n;
}

bool GpuModule::deadlocked() const {
  for (const auto& sm : sms_)
    if (sm->core().deadlocked()) return true;
  return false;
}

void GpuModule::launch(size_t k, uint64_t cycle) {
  if (k >= records_.size()) return;
  KernelRecord& rec = records_[k];
  rec.start_cycle = cycle;
  rec.warp_instructions = total_warp_instructions();  // subtracted at the end
  rec.ctas_completed = total_ctas_completed();
  // One GPU-wide state per kernel, shared by every SM's mechanism instance.
  std::shared_ptr<KernelSharedState> shared = mechanism_.make_kernel_shared_state();
  cta_dispatcher_->bind(*dispatchers_[k]);
  kernel_runs_ahead_ = run_ahead_turn_ && !wave_;
  if (run_ahead_turn_) run_ahead_turn_->bind(*dispatchers_[k]);
  for (uint32_t i = 0; i < sms_.size(); ++i) {
    const SmConfiguration& c = sm_configs_[i];
    sms_[i]->begin_kernel(
        *rec.kernel, mechanism_.make(c.spec.sm, rec.kernel->resources(), kernel_origin_, i, shared, c.settings.get()),
        *dispatchers_[k]);
    kernel_runs_ahead_ = kernel_runs_ahead_ && c.neighbour < 0 && cores_[i]->runs_ahead_ok();
  }
  for (bool any = true; any;) {
    any = false;
    for (auto& sm : sms_) any |= sm->core().launch_one_cta();
  }
  next_kernel_ = k + 1;
  due_.assign(sms_.size(), rec.start_cycle);
}

void GpuModule::kernel_drained(uint64_t cycle) {
  KernelRecord& rec = records_[next_kernel_ - 1];
  rec.end_cycle = cycle + 1;
  rec.warp_instructions = total_warp_instructions() - rec.warp_instructions;
  rec.ctas_completed = total_ctas_completed() - rec.ctas_completed;
  rec.finished = !deadlocked() && rec.ctas_completed == rec.kernel->resources().grid_ctas;
  if (!rec.finished) return;  // a deadlock ends the stream: report what happened
  if (next_kernel_ < records_.size()) launch_at_ = cycle + 1;
}

void GpuModule::trace(Waveform& wave) {
  wave_ = &wave;
  memory_->keep_dram_queue_depth(true);
  for (uint32_t i = 0; i < sms_.size(); ++i) {
    if (!wave.traces_sm(i)) continue;
    traced_sms_.push_back(i);
    sms_[i]->trace(wave);
  }
  traced_structures_ = trace_structures(*this, wave);
}

void GpuModule::observe_every(uint64_t period, std::function<void(uint64_t cycle)> observe) {
  observer_ = std::move(observe);
  observe_period_ = std::max<uint64_t>(period, 1);
  next_observation_ = observe_period_;
}

void GpuModule::follow_window(uint64_t cycle) {
  const bool inside = cycle >= wave_->first_cycle() && cycle <= wave_->last_cycle();
  if (inside == in_window_) return;
  in_window_ = inside;
  for (uint32_t i : traced_sms_) {
    sms_[i]->core().set_cycle_by_cycle(inside);
    // A sleeping SM wakes for the window's first cycle (ticking a cycle it
    // could have slept through changes nothing but the waveform).
    if (inside && due_[i] != SmCore::kNever) due_[i] = std::min(due_[i], cycle);
  }
}

}  // namespace smshare
