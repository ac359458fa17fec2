// Drives the models' Scheduler from SimGrid's clock: one kernel timer at the Scheduler's next
// event; when it fires, every event due then runs (in the simulation kernel, where the models
// only schedule events and never block).
//
// When the models and exsim's transfer network are all the engine has to simulate (no actor
// acting, no SimGrid activity, no other timer), the engine's loop would only alternate between
// them. run_ahead() lets the clock do that itself from the first time it fires: it moves time as
// SimGrid's loop does (the earliest of the Scheduler's next event and the network's next
// completion, added to the clock as a delta, the network told first, then the events due run),
// so every time is the same double, without a round of the engine's models and timers per
// instant. SimGrid's own clock then stays where it was: the sim/ code reads now().
//   exsim::SimClock clock(sched);   // before the engine runs
//   clock.run_ahead(transfers);     // optional: nothing but the models and `transfers` to simulate
#pragma once

#include "models/core/scheduler.hpp"

#include <functional>

namespace simgrid::kernel::timer {
class Timer;
}

namespace exsim {

class TransferNetwork;

class SimClock {
public:
  explicit SimClock(Scheduler& s);
  SimClock(const SimClock&) = delete;
  SimClock& operator=(const SimClock&) = delete;
  ~SimClock();

  // Schedules `cb` at the engine's current time, from an actor or an engine callback (whose clock
  // may be ahead of the Scheduler's, which only advances when its events run).
  void post_now(Callback cb);

  // The engine's time: SimGrid's clock, or this clock's own once it runs ahead.
  double now() const;

  // From now on the clock moves itself between the Scheduler's events and `net`'s completions
  // (see above); call before the engine runs. Only for a simulation where nothing else happens in
  // the engine: the models, `net` (which then takes its time from this clock and is no longer
  // one of the engine's models) and actors that only wait for the models.
  void run_ahead(TransferNetwork& net);
  // Called once per instant the clock runs ahead to (for progress reports).
  std::function<void(double)> on_advance;

private:
  void arm(double t);
  void fire();

  Scheduler& sched_;
  simgrid::kernel::timer::Timer* timer_ = nullptr;
  double armed_at_ = 0;
  bool firing_ = false;
  TransferNetwork* ahead_ = nullptr; // run_ahead's network
  double now_ = 0;                   // the time while running ahead
};

} // namespace exsim
