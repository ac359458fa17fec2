#include "models/cpu/thread_pool.hpp"

namespace exsim {

void ThreadPool::submit(double ns, Callback done, double* started_at) {
  if (busy_ < threads_)
    start({ns, done, started_at});
  else
    queue_.push_back({ns, done, started_at});
}

void ThreadPool::start(const Job& job) {
  uint64_t slot;
  if (!free_slots_.empty()) {
    slot = free_slots_.back();
    free_slots_.pop_back();
    running_[slot] = job.done;
  } else {
    slot = running_.size();
    running_.push_back(job.done);
  }
  ++busy_;
  if (job.started_at) *job.started_at = cpu_.now();
  cpu_.start(job.ns, Callback::of<&ThreadPool::finished>(this, slot));
}

void ThreadPool::finished(uint64_t slot) {
  const Callback done = running_[slot];
  running_[slot] = {};
  free_slots_.push_back(slot);
  --busy_;
  if (!queue_.empty()) {
    const Job next = queue_.front();
    queue_.pop_front();
    start(next);
  }
  done();
}

} // namespace exsim
