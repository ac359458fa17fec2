#include "models/core/scheduler.hpp"

#include <algorithm>
#include <stdexcept>

namespace exsim {

void Scheduler::at(double t, Callback cb) {
  const double before = next_time();
  if (!(t > now_)) { // now (rounding may put a computed time a hair in the past)
    due_.push_back(cb);
    ++seq_;
    if (now_ < before && on_earlier_event) on_earlier_event(now_);
    return;
  }
  heap_push({t, seq_++, cb});
  if (t < before && on_earlier_event) on_earlier_event(t);
}

void Scheduler::after(double delay, Callback cb) {
  const double t = now_ + delay;
  if (!(t > now_)) {
    at(t, cb);
    return;
  }
  size_t i = 0;
  while (i < lanes_.size() && lanes_[i].delay != delay)
    ++i;
  if (i == lanes_.size()) lanes_.push_back({delay, {}});
  Lane& lane = lanes_[i];
  // now_ never decreases, so t is never before the lane's last event, and seq_ grows.
  const Event e{t, seq_++, cb};
  const bool first = lane.events.empty();
  lane.events.push_back(e);
  if (!first) return; // after the lane's first event, which is in the heap: never the earliest
  const double before = next_time();
  heap_push({t, e.seq, {nullptr, nullptr, i}});
  if (t < before && on_earlier_event) on_earlier_event(t);
}

// The new event's hole moves up past every parent that comes later.
void Scheduler::heap_push(const Event& e) {
  heap_.emplace_back();
  size_t hole = heap_.size() - 1;
  while (hole > 0) {
    const size_t parent = (hole - 1) / 2;
    if (!later(heap_[parent], e)) break;
    heap_[hole] = heap_[parent];
    hole = parent;
  }
  heap_[hole] = e;
}

// The root's hole moves down past every earlier child until `e` fits.
void Scheduler::sift_down(Event e) {
  const size_t n = heap_.size();
  size_t hole = 0;
  while (true) {
    size_t child = 2 * hole + 1;
    if (child >= n) break;
    if (child + 1 < n && later(heap_[child], heap_[child + 1])) ++child;
    if (!later(e, heap_[child])) break;
    heap_[hole] = heap_[child];
    hole = child;
  }
  heap_[hole] = e;
}

void Scheduler::heap_pop() {
  const Event last = heap_.back();
  heap_.pop_back();
  if (!heap_.empty()) sift_down(last);
}

Callback Scheduler::take_first() {
  const Event& top = heap_.front();
  if (top.cb.fn != nullptr) {
    const Callback cb = top.cb;
    heap_pop();
    return cb;
  }
  Lane& lane = lanes_[top.cb.arg];
  const Callback cb = lane.events.take_front().cb;
  if (lane.events.empty()) {
    heap_pop();
  } else {
    const Event& next = lane.events.front();
    sift_down({next.t, next.seq, {nullptr, nullptr, top.cb.arg}});
  }
  return cb;
}

void Scheduler::advance_to(double t) {
  if (t < now_ || !due_.empty() || (!heap_.empty() && heap_.front().t < t)) return;
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
      take_first()();
      continue;
    }
    if (!due_.empty()) {
      due_.take_front()();
      continue;
    }
    if (heap_.empty() || heap_.front().t > t) break;
    now_ = heap_.front().t;
  }
  if (t > now_ && t < std::numeric_limits<double>::infinity()) now_ = t;
}

} // namespace exsim
