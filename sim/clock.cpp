#include "sim/clock.hpp"

#include <simgrid/kernel/Timer.hpp>
#include <simgrid/s4u/Engine.hpp>

namespace exsim {

SimClock::SimClock(Scheduler& s) : sched_(s) {
  sched_.on_earlier_event = [this](double t) { arm(t); };
}

SimClock::~SimClock() { sched_.on_earlier_event = nullptr; }

void SimClock::post_now(Callback cb) { sched_.at(simgrid::s4u::Engine::get_clock(), cb); }

void SimClock::arm(double t) {
  if (firing_) return; // fire() re-arms for whatever is next when it is done
  if (timer_ != nullptr) {
    if (armed_at_ <= t) return;
    timer_->remove();
  }
  armed_at_ = t;
  timer_ = simgrid::kernel::timer::Timer::set(t, [this] { fire(); });
}

void SimClock::fire() {
  timer_ = nullptr;
  firing_ = true;
  sched_.run_until(simgrid::s4u::Engine::get_clock());
  firing_ = false;
  if (!sched_.empty()) arm(sched_.next_time());
}

} // namespace exsim
