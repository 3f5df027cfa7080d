// What an SM must respect when the SMs of a cycle are ticked on several host
// threads (smshare run --host-threads N; GpuModule and ParallelTicks).
//
// Ticked one after another, SM 0 runs its whole cycle, then SM 1, and so on:
// that order decides who gets the next CTA, the order in which the memory
// system books requests, and what a mechanism's kernel-wide state holds when
// an SM reads it. Ticked in parallel, everything an SM owns (its warps,
// pipeline, caches, banks, mechanism instance) is touched by one thread only,
// and what SMs share is touched only in the SM's turn: once every SM below it
// has finished the cycle. Then a run gives the same report with any number of
// host threads. What the memory system is asked also runs on the main
// thread, the one SystemC runs on (SystemC is not thread-safe).
#pragma once

#include <cstdint>
#include <type_traits>
#include <utility>

namespace smshare {

// A non-owning reference to a callable `void()`, valid for one call: no
// allocation on the tick path.
class CallRef {
 public:
  template <class F, class = std::enable_if_t<!std::is_same_v<std::decay_t<F>, CallRef>>>
  CallRef(F& f) : object_(&f), call_([](void* o) { (*static_cast<F*>(o))(); }) {}  // NOLINT(google-explicit-constructor)
  void operator()() const { call_(object_); }

 private:
  void* object_;
  void (*call_)(void*);
};

class TickTurn {
 public:
  virtual ~TickTurn() = default;
  // Returns once every SM below `sm` has finished the cycle being ticked; at
  // once when the cycle is not ticked in parallel.
  virtual void await(uint32_t sm) = 0;
  // In `sm`'s turn, runs `call` on the main thread (directly when this is
  // it) and returns when it has run, rethrowing what it threw. Before it,
  // the requests the lower SMs and `sm` left for later this cycle are booked
  // (their order in the memory system is SM order).
  virtual void on_main_thread(uint32_t sm, CallRef call) = 0;
  // Whether the cycle is ticked in parallel: an SM then leaves its memory
  // requests for the main thread to book after the SMs' ticks, in SM order,
  // where it can take the answers after its tick (GlobalMemoryPort::kLater).
  virtual bool answers_later() const = 0;
};

}  // namespace smshare
