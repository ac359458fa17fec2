#include "models/cpu/host_cpu.hpp"

#include <algorithm>

namespace exsim {

HostCpu::HostCpu(Scheduler& s, int cores, int threads_per_core, double second_thread_gain)
    : sched_(s), model_(cores, threads_per_core, second_thread_gain) {}

uint64_t HostCpu::start(double ns, Callback done) {
  uint64_t slot;
  if (!free_slots_.empty()) {
    slot = free_slots_.back();
    free_slots_.pop_back();
    callbacks_[slot] = done;
  } else {
    slot = callbacks_.size();
    callbacks_.push_back(done);
  }
  model_.start(sched_.now(), ns * 1e-9, slot);
  reschedule();
  return slot;
}

void HostCpu::cancel(uint64_t handle) {
  if (!model_.cancel(sched_.now(), handle)) return;
  callbacks_[handle] = {};
  free_slots_.push_back(handle);
  reschedule();
}

// One pending event, at or before the next completion: a new event only when the next completion
// comes earlier than the one armed (an event whose generation is stale then does nothing); when it
// moves later, the armed event fires early and arms the next.
void HostCpu::reschedule() {
  const double next = model_.next_completion();
  if (next >= armed_at_ || next == std::numeric_limits<double>::infinity()) return;
  armed_at_ = next;
  ++generation_;
  sched_.at(next, Callback::of<&HostCpu::fire>(this, generation_));
}

void HostCpu::fire(uint64_t generation) {
  if (generation != generation_) return;
  armed_at_ = std::numeric_limits<double>::infinity();
  const double now = sched_.now();
  if (model_.next_completion() > now + 1e-12 * std::max(1.0, now)) { // what was due was cancelled or slowed
    reschedule();
    return;
  }
  done_.clear();
  model_.complete_next(sched_.now(), done_);
  due_.clear();
  for (uint64_t slot : done_) {
    due_.push_back(callbacks_[slot]);
    callbacks_[slot] = {};
    free_slots_.push_back(slot);
  }
  reschedule();
  // The owners run last: they may start or cancel work, which reschedules again. due_ is only
  // read here, and a nested fire() cannot happen before this event returns.
  for (size_t i = 0; i < due_.size(); ++i)
    due_[i]();
}

} // namespace exsim
