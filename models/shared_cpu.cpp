#include "models/shared_cpu.hpp"

#include <algorithm>
#include <functional>
#include <limits>
#include <stdexcept>

namespace exsim {

SharedCpu::SharedCpu(int cores) : cores_(cores) {
  if (cores < 1) throw std::invalid_argument("SharedCpu: at least one core");
}

double SharedCpu::rate() const {
  return running_ <= cores_ ? 1.0 : static_cast<double>(cores_) / running_;
}

void SharedCpu::advance(double now) {
  if (now < time_) throw std::logic_error("SharedCpu: time went backwards");
  if (running_ > 0) clock_ += (now - time_) * rate();
  time_ = now;
}

uint64_t SharedCpu::start(double now, double work_s) {
  if (!(work_s >= 0)) throw std::invalid_argument("SharedCpu: negative work");
  advance(now);
  const uint64_t id = next_id_++;
  heap_.push_back({clock_ + work_s, id});
  std::push_heap(heap_.begin(), heap_.end(), std::greater<>());
  running_++;
  return id;
}

bool SharedCpu::cancel(double now, uint64_t id) {
  if (id >= next_id_ || std::find(cancelled_.begin(), cancelled_.end(), id) != cancelled_.end()) return false;
  auto it = std::find_if(heap_.begin(), heap_.end(), [id](const Piece& p) { return p.id == id; });
  if (it == heap_.end()) return false; // already finished
  advance(now);
  cancelled_.push_back(id);
  running_--;
  drop_cancelled_top();
  return true;
}

void SharedCpu::drop_cancelled_top() {
  while (!heap_.empty()) {
    auto c = std::find(cancelled_.begin(), cancelled_.end(), heap_.front().id);
    if (c == cancelled_.end()) return;
    cancelled_.erase(c);
    std::pop_heap(heap_.begin(), heap_.end(), std::greater<>());
    heap_.pop_back();
  }
}

double SharedCpu::next_completion() const {
  if (running_ == 0) return std::numeric_limits<double>::infinity();
  return time_ + (heap_.front().finish - clock_) / rate();
}

void SharedCpu::complete_next(double now, std::vector<uint64_t>& done) {
  if (running_ == 0) return;
  advance(now);
  // The earliest piece is due now by construction; rounding may leave the clock a hair short.
  clock_ = std::max(clock_, heap_.front().finish);
  const size_t first = done.size();
  while (!heap_.empty() && heap_.front().finish <= clock_) {
    const uint64_t id = heap_.front().id;
    std::pop_heap(heap_.begin(), heap_.end(), std::greater<>());
    heap_.pop_back();
    auto c = std::find(cancelled_.begin(), cancelled_.end(), id);
    if (c != cancelled_.end()) {
      cancelled_.erase(c);
      continue;
    }
    done.push_back(id);
    running_--;
  }
  std::sort(done.begin() + static_cast<std::ptrdiff_t>(first), done.end());
  drop_cancelled_top();
}

} // namespace exsim
