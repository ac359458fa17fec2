// Drives the models' Scheduler from SimGrid's clock: one kernel timer at the Scheduler's next
// event; when it fires, every event due then runs (in the simulation kernel, where the models
// only schedule events and never block).
//   exsim::SimClock clock(sched);   // before the engine runs
#pragma once

#include "models/scheduler.hpp"

namespace simgrid::kernel::timer {
class Timer;
}

namespace exsim {

class SimClock {
public:
  explicit SimClock(Scheduler& s);
  SimClock(const SimClock&) = delete;
  SimClock& operator=(const SimClock&) = delete;
  ~SimClock();

  // Schedules `cb` at the engine's current time, from an actor or an engine callback (whose clock
  // may be ahead of the Scheduler's, which only advances when its events run).
  void post_now(Callback cb);

private:
  void arm(double t);
  void fire();

  Scheduler& sched_;
  simgrid::kernel::timer::Timer* timer_ = nullptr;
  double armed_at_ = 0;
  bool firing_ = false;
};

} // namespace exsim
