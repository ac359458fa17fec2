// A host's cores shared by the CPU work running on it. A piece of work runs on at most one
// hardware thread; a host has `cores` physical cores of `threads_per_core` hardware threads, and
// a core busy with a second thread does 1 + `second_thread_gain` times the work of a core busy
// with one. With n pieces running, the host's throughput is
//   min(n, cores) + second_thread_gain x (min(n, cores x threads_per_core) - cores)+
// shared equally by the n pieces (processor sharing). With one thread per core this is the rule
// SimGrid applies to executions on a multi-core host. Work is measured in seconds of one thread
// running alone on a core. Every running piece progresses at the same rate, so one "service
// clock" (work each piece has received since the start) is enough: a piece finishes when the
// clock reaches the clock at its start plus its work. Starting, finishing and cancelling cost
// O(log n). Pure bookkeeping: the caller decides when time passes.
//   exsim::SharedCpu cpu(/*cores=*/8, /*threads_per_core=*/2, /*second_thread_gain=*/0.26);
//   uint64_t id = cpu.start(now, 12e-6);          // 12 us of one thread's work
//   double t = cpu.next_completion();             // when the earliest piece finishes
//   std::vector<uint64_t> done; cpu.complete_next(t, done);
#pragma once

#include <cstdint>
#include <vector>

namespace exsim {

class SharedCpu {
public:
  explicit SharedCpu(int cores, int threads_per_core = 1, double second_thread_gain = 0);

  // Starts `work_s` seconds of one thread's work at time `now` (never before the last event);
  // `tag` names the piece in complete_next() and cancel(). Returns the tag.
  uint64_t start(double now, double work_s, uint64_t tag);
  // Same, tagged with its start number (0, 1, 2, ...).
  uint64_t start(double now, double work_s) { return start(now, work_s, started_); }
  // Withdraws an unfinished piece at time `now`; false when it is not running.
  bool cancel(double now, uint64_t tag);
  // The time the earliest running piece finishes at the current sharing; +infinity when idle.
  double next_completion() const {
    if (!next_known_) {
      next_ = earliest_finish();
      next_known_ = true;
    }
    return next_;
  }
  // Called at next_completion(): finishes the earliest piece and every piece due at the same
  // service clock, appending their tags to `done` in start order.
  void complete_next(double now, std::vector<uint64_t>& done);

  int running() const { return running_; }
  int cores() const { return cores_; }
  int hardware_threads() const { return cores_ * threads_per_core_; }
  // Work per second each running piece receives when n pieces run.
  double rate(int n) const;

private:
  struct Piece {
    double finish; // service clock at which it is done
    uint64_t seq;  // start order
    uint64_t tag;
    bool operator>(const Piece& o) const { return finish != o.finish ? finish > o.finish : seq > o.seq; }
  };
  void advance(double now);
  void drop_cancelled_top();
  double earliest_finish() const;

  int cores_;
  int threads_per_core_;
  double gain_;
  int running_ = 0;
  double time_ = 0;
  double clock_ = 0;
  uint64_t started_ = 0;
  std::vector<Piece> heap_;         // min-heap on (finish, seq); may hold cancelled pieces
  std::vector<uint64_t> cancelled_; // seqs withdrawn but still in the heap (rare)
  std::vector<Piece> due_;          // scratch for complete_next
  // next_completion() until the pieces or the time change (a host's wake-up asks again).
  mutable double next_ = 0;
  mutable bool next_known_ = false;
};

} // namespace exsim
