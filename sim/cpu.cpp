#include "sim/cpu.hpp"

#include <simgrid/kernel/Timer.hpp>

#include <cmath>

namespace exsim {

uint64_t HostCpu::start(double ns, Done done) {
  const uint64_t id = model_.start(sg4::Engine::get_clock(), ns * 1e-9);
  done_.emplace(id, std::move(done));
  reschedule();
  return id;
}

void HostCpu::cancel(uint64_t id) {
  if (!model_.cancel(sg4::Engine::get_clock(), id)) return;
  done_.erase(id);
  reschedule();
}

void HostCpu::run(double ns, const sg4::SemaphorePtr& wake) {
  if (ns <= 0) return;
  start(ns, [wake](uint64_t) { wake->release(); });
  wake->acquire();
}

// One kernel timer per host, at the next completion; moved whenever the sharing changes it.
void HostCpu::reschedule() {
  const double next = model_.next_completion();
  if (timer_ != nullptr) {
    if (next == timer_at_) return;
    timer_->remove();
    timer_ = nullptr;
  }
  if (std::isinf(next)) return;
  timer_at_ = next;
  timer_ = simgrid::kernel::timer::Timer::set(next, [this] { fire(); });
}

void HostCpu::fire() {
  timer_ = nullptr;
  finished_.clear();
  model_.complete_next(sg4::Engine::get_clock(), finished_);
  for (uint64_t id : finished_) {
    auto it = done_.find(id);
    Done done = std::move(it->second);
    done_.erase(it);
    done(id);
  }
  reschedule();
}

} // namespace exsim
