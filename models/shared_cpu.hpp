// A host's cores shared by the CPU work running on it, by the rule SimGrid applies to executions
// on a multi-core host: a piece of work runs on at most one core, and when more pieces run than
// there are cores they share the cores equally (processor sharing, each capped at one core).
// Work is measured in seconds of one core. Every running piece progresses at the same rate, so
// one "service clock" (work each piece has received since the start) is enough: a piece finishes
// when the clock reaches the clock at its start plus its work. Starting, finishing and cancelling
// cost O(log n). Pure bookkeeping: the engine glue decides when time passes.
//   exsim::SharedCpu cpu(/*cores=*/16);
//   uint64_t id = cpu.start(now, 12e-6);          // 12 us of one core's work
//   double t = cpu.next_completion();             // when the earliest piece finishes
//   std::vector<uint64_t> done; cpu.complete_next(t, done);
#pragma once

#include <cstdint>
#include <vector>

namespace exsim {

class SharedCpu {
public:
  explicit SharedCpu(int cores);

  // Starts `work_s` seconds of one core's work at time `now` (never before the last event).
  uint64_t start(double now, double work_s);
  // Withdraws an unfinished piece at time `now`; false when it is not running.
  bool cancel(double now, uint64_t id);
  // The time the earliest running piece finishes at the current sharing; +infinity when idle.
  double next_completion() const;
  // Called at next_completion(): finishes the earliest piece and every piece due at the same
  // service clock, appending their ids to `done` in start order.
  void complete_next(double now, std::vector<uint64_t>& done);

  int running() const { return running_; }
  int cores() const { return cores_; }

private:
  struct Piece {
    double finish; // service clock at which it is done
    uint64_t id;
    bool operator>(const Piece& o) const { return finish != o.finish ? finish > o.finish : id > o.id; }
  };
  void advance(double now);
  double rate() const; // service per second for each running piece
  void drop_cancelled_top();

  int cores_;
  int running_ = 0;
  double time_ = 0;
  double clock_ = 0;
  uint64_t next_id_ = 0;
  std::vector<Piece> heap_;         // min-heap on (finish, id); may hold cancelled pieces
  std::vector<uint64_t> cancelled_; // ids withdrawn but still in the heap (rare)
};

} // namespace exsim
