#include "models/cpu/shared_cpu.hpp"

#include <algorithm>
#include <functional>
#include <limits>
#include <stdexcept>

namespace exsim {

SharedCpu::SharedCpu(int cores, int threads_per_core, double second_thread_gain)
    : cores_(cores), threads_per_core_(threads_per_core), gain_(second_thread_gain) {
  if (cores < 1) throw std::invalid_argument("SharedCpu: at least one core");
  if (threads_per_core < 1) throw std::invalid_argument("SharedCpu: at least one thread per core");
  if (!(second_thread_gain >= 0 && second_thread_gain <= 1))
    throw std::invalid_argument("SharedCpu: second_thread_gain must be in [0, 1]");
}

double SharedCpu::rate(int n) const {
  if (n <= cores_) return 1.0;
  const int threads = std::min(n, cores_ * threads_per_core_);
  const double throughput = cores_ + gain_ * (threads - cores_);
  return throughput / n;
}

void SharedCpu::advance(double now) {
  if (now < time_) throw std::logic_error("SharedCpu: time went backwards");
  next_known_ = false;
  if (running_ > 0) clock_ += (now - time_) * rate(running_);
  time_ = now;
}

uint64_t SharedCpu::start(double now, double work_s, uint64_t tag) {
  if (!(work_s >= 0)) throw std::invalid_argument("SharedCpu: negative work");
  advance(now);
  heap_.push_back({clock_ + work_s, started_++, tag});
  std::push_heap(heap_.begin(), heap_.end(), std::greater<>());
  running_++;
  return tag;
}

bool SharedCpu::cancel(double now, uint64_t tag) {
  auto it = std::find_if(heap_.begin(), heap_.end(), [&](const Piece& p) {
    return p.tag == tag && std::find(cancelled_.begin(), cancelled_.end(), p.seq) == cancelled_.end();
  });
  if (it == heap_.end()) return false; // finished, cancelled, or never started
  advance(now);
  cancelled_.push_back(it->seq);
  running_--;
  drop_cancelled_top();
  return true;
}

void SharedCpu::drop_cancelled_top() {
  if (cancelled_.empty()) return; // the usual case
  while (!heap_.empty()) {
    auto c = std::find(cancelled_.begin(), cancelled_.end(), heap_.front().seq);
    if (c == cancelled_.end()) return;
    cancelled_.erase(c);
    std::pop_heap(heap_.begin(), heap_.end(), std::greater<>());
    heap_.pop_back();
  }
}

double SharedCpu::earliest_finish() const {
  if (running_ == 0) return std::numeric_limits<double>::infinity();
  return time_ + (heap_.front().finish - clock_) / rate(running_);
}

void SharedCpu::complete_next(double now, std::vector<uint64_t>& done) {
  if (running_ == 0) return;
  advance(now);
  // The earliest piece is due now by construction; rounding may leave the clock a hair short.
  clock_ = std::max(clock_, heap_.front().finish);
  due_.clear();
  while (!heap_.empty() && heap_.front().finish <= clock_) {
    const Piece p = heap_.front();
    std::pop_heap(heap_.begin(), heap_.end(), std::greater<>());
    heap_.pop_back();
    if (!cancelled_.empty()) {
      auto c = std::find(cancelled_.begin(), cancelled_.end(), p.seq);
      if (c != cancelled_.end()) {
        cancelled_.erase(c);
        continue;
      }
    }
    due_.push_back(p);
    running_--;
  }
  if (due_.size() > 1) // usually one piece
    std::sort(due_.begin(), due_.end(), [](const Piece& a, const Piece& b) { return a.seq < b.seq; });
  for (const Piece& p : due_)
    done.push_back(p.tag);
  drop_cancelled_top();
}

} // namespace exsim
