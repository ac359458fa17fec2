#include "sim/clock.hpp"

#include "sim/network.hpp"

#include <simgrid/kernel/Timer.hpp>
#include <simgrid/s4u/Engine.hpp>

namespace exsim {

SimClock::SimClock(Scheduler& s) : sched_(s) {
  sched_.on_earlier_event = [this](double t) { arm(t); };
}

SimClock::~SimClock() { sched_.on_earlier_event = nullptr; }

void SimClock::post_now(Callback cb) { sched_.at(now(), cb); }

double SimClock::now() const { return ahead_ != nullptr ? now_ : simgrid::s4u::Engine::get_clock(); }

void SimClock::run_ahead(TransferNetwork& net) {
  now_ = simgrid::s4u::Engine::get_clock();
  ahead_ = &net;
  net.follow(*this);
}

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
  if (ahead_ == nullptr) {
    sched_.run_until(simgrid::s4u::Engine::get_clock());
  } else {
    // SimGrid's loop, for the two things it would drive: the first time fires as its timer
    // would (events due at or before the clock run), then each round the clock moves by the
    // least delta to the Scheduler's next event and the network's next completion (the network
    // computes that first, even when the Scheduler's is sooner: its solve happens there), the
    // network ends its transfers due then, and the events due run.
    while (true) {
      if (!sched_.empty() && sched_.next_time() <= now_) sched_.run_until(now_);
      double delta = sched_.empty() ? -1 : sched_.next_time() - now_;
      const double net = ahead_->next_event(now_);
      if ((delta < 0 || net < delta) && net >= 0) delta = net;
      if (delta < 0) break;
      now_ += delta;
      sched_.advance_to(now_); // what the network ends now is posted as due now
      ahead_->clock_moved(now_);
      if (on_advance) on_advance(now_);
    }
  }
  firing_ = false;
  if (!sched_.empty()) arm(sched_.next_time());
}

} // namespace exsim
