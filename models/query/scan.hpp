// A scan node instance at mt_dop=0 (HdfsScanNode): scanner threads decode row batches and put
// them in a bounded row-batch queue that the fragment thread reads. Impala starts the scanner
// threads at the first GetNext, up to num_scanner_threads (0 = one per logical CPU) and no more
// than the instance has scan ranges; the queue holds 5 batches per scanner thread. At mt_dop > 0
// the fragment instance decodes on its own thread and no ScanNode is used.
//   exsim::ScanNode scan(...);   co_await scan.next(thread, rows);   // rows == 0: done
#pragma once

#include "models/core/coro.hpp"
#include "models/core/ring.hpp"
#include "models/core/round.hpp"
#include "models/cpu/thread.hpp"
#include "models/query/late_rows.hpp"

#include <algorithm>
#include <cmath>
#include <memory>
#include <vector>

namespace exsim {

// What a scan with runtime filters emits: its rows are counted with every filter applied, and
// while some have not arrived it passes 1/keep times more of what it reads for each of those.
// Rounded on running totals, so that nothing drifts; a batch of n >= 1 filtered rows passes >= 1.
// What it passes is read in the same order (FIFO) by the fragment thread, which takes each batch's
// late rows (models/query/late_rows.hpp) with `take`: the totals are exact; with several scanner
// threads, batches near a filter's arrival may reach the queue in another order than they passed.
// Filters are taken as independent, but the rows passed never exceed the rows read (`cap`, rows
// read per filtered row, when the scan gives its rows read): filters on one key reject the same rows.
struct FilterGate {
  double factor = 1;   // rows passed per filtered row: the product of 1/keep over missing filters
  double cap = HUGE_VAL; // at most this many rows passed per filtered row
  int64_t filtered = 0; // rows taken, as counted with every filter applied
  double exact = 0;    // rows passed, unrounded
  int64_t passed = 0;  // rows passed
  std::vector<int> missing; // the missing filters that would remove rows (query-wide ids, sorted)
  MixStream stream;

  int64_t pass(int64_t n) {
    filtered += n;
    exact += static_cast<double>(n) * std::min(factor, cap);
    const int64_t target = round_to_int64(exact);
    const int64_t out = target - passed;
    passed = target;
    stream.put(static_cast<double>(out), RowMix::late(missing, static_cast<double>(std::max<int64_t>(0, out - n))));
    return out;
  }
  // The late rows among the next `n` rows passed.
  RowMix take(int64_t n) { return stream.take(0, static_cast<double>(n)); }
  // Rows that left the scan only because a filter had not arrived.
  int64_t passed_before_filters() const { return passed - filtered; }
};

struct ScanWork {
  int64_t rows = 0;         // output rows of this instance
  double read_per_row = 1;  // rows read per output row (predicates)
  double ns_per_row_read = 0;
  int64_t batch_size = 1024;
  FilterGate* gate = nullptr; // runtime filters: rows passed per batch taken (none: the batch)
};

class ScanNode {
public:
  // Max `threads` scanner threads and `queue_batches` queued batches, on `cpu`.
  ScanNode(Scheduler& s, HostCpu& cpu, const bool& stopping, ScanWork work, int threads, int queue_batches);
  ScanNode(const ScanNode&) = delete;
  ScanNode& operator=(const ScanNode&) = delete;

  // The fragment thread takes the next batch (rows == 0 when the scan is done). The first call
  // starts the scanner threads; a thread that waits takes the path of the scanner that fed it.
  // When a batch is queued it starts no coroutine (the Task it returns is empty).
  Task next(SimThread& t, int64_t& rows) {
    if (!started_ || queue_.empty()) return start_or_wait(t, rows);
    t.check_stop();
    pop_batch(t, rows);
    return {};
  }
  // The query is stopping: every waiting thread is woken.
  void wake_all();
  double scanner_cpu_s() const;

private:
  struct Queued {
    int64_t rows;
    Path path;
  };
  void pop_batch(SimThread& t, int64_t& rows);
  Task start_or_wait(SimThread& t, int64_t& rows);
  Task scanner(int k);
  void scanner_done();

  Scheduler& sched_;
  HostCpu& cpu_;
  const bool& stopping_;
  ScanWork work_;
  int max_threads_;
  size_t capacity_;
  bool started_ = false;
  int64_t rows_left_ = 0; // not yet taken by a scanner thread
  int running_ = 0;
  Ring<Queued> queue_;
  std::vector<std::unique_ptr<SimThread>> threads_;
  std::vector<Task> tasks_;
  Waiter reader_;
  std::vector<std::coroutine_handle<>> full_waiters_; // scanner threads waiting for room
  Path last_pop_path_; // the reader's path when it last made room
};

} // namespace exsim
