#include "models/scheduler.hpp"

#include <algorithm>
#include <stdexcept>

namespace exsim {

void Scheduler::at(double t, Callback cb) {
  if (!(t >= now_)) t = now_; // rounding may put a computed time a hair in the past
  const double before = next_time();
  heap_.push_back({t, seq_++, cb});
  std::push_heap(heap_.begin(), heap_.end(), later);
  if (t < before && on_earlier_event) on_earlier_event(t);
}

void Scheduler::run_next_instant() {
  if (heap_.empty()) return;
  run_until(heap_.front().t);
}

void Scheduler::run_until(double t) {
  if (t > now_) now_ = t;
  while (!heap_.empty() && heap_.front().t <= now_) {
    std::pop_heap(heap_.begin(), heap_.end(), later);
    const Callback cb = heap_.back().cb;
    heap_.pop_back();
    ++events_run_;
    cb();
  }
}

} // namespace exsim
