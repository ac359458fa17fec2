#include "models/query/scan.hpp"

#include <algorithm>

namespace exsim {

ScanNode::ScanNode(Scheduler& s, HostCpu& cpu, const bool& stopping, ScanWork work, int threads, int queue_batches)
    : sched_(s), cpu_(cpu), stopping_(stopping), work_(work), max_threads_(std::max(1, threads)),
      capacity_(static_cast<size_t>(std::max(1, queue_batches))), rows_left_(work.rows) {}

// The first call starts the scanner threads; then the reader waits for a batch or the scan's end.
Task ScanNode::start_or_wait(SimThread& t, int64_t& rows) {
  rows = 0;
  if (!started_) {
    started_ = true;
    const int64_t batches = (work_.rows + work_.batch_size - 1) / work_.batch_size;
    const int n = static_cast<int>(std::min<int64_t>(max_threads_, std::max<int64_t>(1, batches)));
    running_ = n;
    for (int k = 0; k < n; ++k) {
      threads_.push_back(std::make_unique<SimThread>(sched_, cpu_, stopping_));
      threads_.back()->path = t.path; // started by the reader's first GetNext
      threads_.back()->origin = t.origin;
      tasks_.push_back(scanner(k));
      tasks_.back().start(sched_, {});
    }
  }
  while (queue_.empty()) {
    t.check_stop();
    if (running_ == 0) co_return;
    co_await reader_.wait();
  }
  t.check_stop();
  pop_batch(t, rows);
}

// The reader takes the oldest queued batch, with the path of the scanner that made it when that
// is the later, and wakes a scanner thread waiting for room.
void ScanNode::pop_batch(SimThread& t, int64_t& rows) {
  rows = queue_.front().rows;
  t.adopt_then_catch_up(queue_.front().path, PathPart::cpu_scan);
  queue_.pop_front();
  last_pop_path_ = t.path;
  if (!full_waiters_.empty()) {
    sched_.post(resume_callback(full_waiters_.front()));
    full_waiters_.erase(full_waiters_.begin());
  }
}

Task ScanNode::scanner(int k) {
  SimThread& me = *threads_[static_cast<size_t>(k)];
  try {
    while (rows_left_ > 0) {
      const int64_t n = std::min(rows_left_, work_.batch_size);
      rows_left_ -= n;
      // Whether a filter applies is decided as the batch's reading starts; its CPU is per row read.
      const int64_t out = work_.gate ? work_.gate->pass(n) : n;
      me.charge(PathPart::cpu_scan, static_cast<double>(n) * work_.read_per_row * work_.ns_per_row_read);
      co_await me.flush();
      me.check_stop();
      while (queue_.size() >= capacity_) {
        struct Park {
          ScanNode& s;
          bool await_ready() const noexcept { return false; }
          void await_suspend(std::coroutine_handle<> h) { s.full_waiters_.push_back(h); }
          void await_resume() const noexcept {}
        };
        co_await Park{*this};
        me.check_stop();
        me.adopt_then_catch_up(last_pop_path_, PathPart::cpu_scan); // it waited for the reader to make room
      }
      queue_.push_back({out, me.path});
      reader_.wake(sched_);
    }
  } catch (const Stop&) {
  }
  scanner_done();
}

void ScanNode::scanner_done() {
  if (--running_ == 0) reader_.wake(sched_);
}

void ScanNode::wake_all() {
  reader_.wake(sched_);
  for (auto h : full_waiters_)
    sched_.post(resume_callback(h));
  full_waiters_.clear();
}

double ScanNode::scanner_cpu_s() const {
  double s = 0;
  for (const auto& t : threads_)
    s += t->cpu_time_s;
  return s;
}

} // namespace exsim
