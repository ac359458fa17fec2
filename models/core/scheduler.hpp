// The models' event queue: every piece of behaviour in models/ runs as an event at a simulated
// time, in (time, order of scheduling) order, so the same scenario always runs the same way.
// The engine (sim/clock.hpp) drives it from SimGrid's clock; unit tests drive it by hand.
//   exsim::Scheduler s;
//   s.at(1.5, exsim::Callback::of<&Thing::fire>(&thing));   // calls thing.fire(0) at t = 1.5
//   while (!s.empty()) s.run_next_instant();
#pragma once

#include "models/core/ring.hpp"

#include <algorithm>
#include <cstdint>
#include <functional>
#include <limits>
#include <vector>

namespace exsim {

// A function pointer with its object and one argument: cheap to copy, never allocates.
struct Callback {
  void (*fn)(void* self, uint64_t arg) = nullptr;
  void* self = nullptr;
  uint64_t arg = 0;

  void operator()() const { fn(self, arg); }
  explicit operator bool() const { return fn != nullptr; }

  // Callback::of<&T::method>(obj, arg) calls obj->method(arg).
  template <auto Method, class T> static Callback of(T* obj, uint64_t arg = 0) {
    return {[](void* p, uint64_t a) { (static_cast<T*>(p)->*Method)(a); }, obj, arg};
  }
};

class Scheduler {
public:
  double now() const { return now_; }

  // Runs `cb` at time `t` (never before now). Events at the same time run in the order they were
  // scheduled.
  void at(double t, Callback cb);
  // Runs `cb` at the current time, after the event being handled returns.
  void post(Callback cb) { at(now_, cb); }
  // Runs `cb` `delay` seconds from now: the same as at(now() + delay, cb), in the same order, for
  // events that many wait the same delay (a route's latency). Those come due in the order they
  // were scheduled, so they wait in a queue per delay and only the first of each is in the heap:
  // a smaller heap, and a sift down instead of a pop and a push when the next one moves up.
  void after(double delay, Callback cb);

  // Events scheduled so far (every at() and post()).
  uint64_t scheduled() const { return seq_; }

  bool empty() const { return heap_.empty() && due_.empty(); }
  // Time of the earliest event; +infinity when there is none.
  double next_time() const {
    if (!due_.empty()) return now_;
    return heap_.empty() ? std::numeric_limits<double>::infinity() : heap_.front().t;
  }
  // Advances the clock to next_time() and runs every event due then, including those the events
  // schedule for that same time.
  void run_next_instant();
  // Runs every event due at or before `t` (the engine's clock has reached `t`).
  void run_until(double t);
  // The engine's clock has reached `t`: if every event before `t` has run, the clock moves to `t`
  // before the engine posts what happened there, so that those events join the events due now
  // (no heap push and pop each). They run in the same order as through the heap: after the heap's
  // events at `t`, which were scheduled earlier, and in the order they were posted. Otherwise
  // (rounding left an event a hair before `t`) nothing changes and they go through the heap.
  void advance_to(double t);

  // Called whenever next_time() becomes earlier than it was (the engine re-arms its timer).
  std::function<void(double)> on_earlier_event;

private:
  struct Event {
    double t;
    uint64_t seq;
    Callback cb; // a lane's first event in the heap: no fn, and the lane's index as arg
  };
  static bool later(const Event& a, const Event& b) { return a.t != b.t ? a.t > b.t : a.seq > b.seq; }

  // Events after now: a binary min-heap on (t, seq).
  void heap_push(const Event& e);
  void heap_pop();
  void sift_down(Event e); // places `e` at the root's place
  // The earliest event's callback, taken out of the heap (or out of its lane, whose next event
  // takes the lane's place in the heap).
  Callback take_first();

  struct Lane {
    double delay;
    Ring<Event> events; // in time order; the first is also in the heap
  };

  double now_ = 0;
  uint64_t seq_ = 0;
  std::vector<Event> heap_;
  std::vector<Lane> lanes_;
  // Events scheduled for now, in order. They come after every heap event at now: those were
  // scheduled before the clock reached now, so earlier.
  Ring<Callback> due_;
};

} // namespace exsim
