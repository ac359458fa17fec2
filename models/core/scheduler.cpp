#include "models/core/scheduler.hpp"

#include <algorithm>
#include <stdexcept>

namespace exsim {

void Scheduler::at(double t, Callback cb) {
  const double before = next_time();
  if (!(t > now_)) { // now (rounding may put a computed time a hair in the past)
    push_due(cb);
    ++seq_;
    if (now_ < before && on_earlier_event) on_earlier_event(now_);
    return;
  }
  heap_.push_back({t, seq_++, cb});
  std::push_heap(heap_.begin(), heap_.end(), Later{});
  if (t < before && on_earlier_event) on_earlier_event(t);
}

void Scheduler::push_due(Callback cb) {
  if (due_count_ == due_ring_.size()) { // full: grow, keeping the order
    std::vector<Callback> grown(std::max<size_t>(64, 2 * due_ring_.size()));
    for (size_t i = 0; i < due_count_; ++i)
      grown[i] = due_ring_[(due_head_ + i) % due_ring_.size()];
    due_ring_.swap(grown);
    due_head_ = 0;
  }
  due_ring_[(due_head_ + due_count_) % due_ring_.size()] = cb;
  ++due_count_;
}

Callback Scheduler::pop_due() {
  const Callback cb = due_ring_[due_head_];
  due_head_ = (due_head_ + 1) % due_ring_.size();
  --due_count_;
  return cb;
}

void Scheduler::advance_to(double t) {
  if (t < now_ || due_count_ > 0 || (!heap_.empty() && heap_.front().t < t)) return;
  now_ = t;
}

void Scheduler::run_next_instant() {
  if (empty()) return;
  run_until(next_time());
}

void Scheduler::run_until(double t) {
  while (true) {
    // Heap events due now first (scheduled earlier), then those scheduled for now meanwhile.
    if (!heap_.empty() && heap_.front().t <= now_) {
      std::pop_heap(heap_.begin(), heap_.end(), Later{});
      const Callback cb = heap_.back().cb;
      heap_.pop_back();
      cb();
      continue;
    }
    if (due_count_ > 0) {
      const Callback cb = pop_due();
      cb();
      continue;
    }
    if (heap_.empty() || heap_.front().t > t) break;
    now_ = heap_.front().t;
  }
  if (t > now_ && t < std::numeric_limits<double>::infinity()) now_ = t;
}

} // namespace exsim
