// A daemon's pool of threads serving a FIFO of CPU jobs: the data-stream service threads that
// deserialize admitted batches, and the deserialization pool that handles deferred ones. Both
// are per daemon in Impala, shared by every receiver on it. Each job runs on the host's CPU as
// one piece of work once a thread of the pool is free.
//   exsim::ThreadPool svc(cpu, 16);
//   svc.submit(ns, callback);   // callback runs as an event when the job is done
#pragma once

#include "models/core/ring.hpp"
#include "models/cpu/host_cpu.hpp"

#include <vector>

namespace exsim {

class ThreadPool {
public:
  ThreadPool(HostCpu& cpu, int threads) : cpu_(cpu), threads_(threads < 1 ? 1 : threads) {}
  ThreadPool(const ThreadPool&) = delete;
  ThreadPool& operator=(const ThreadPool&) = delete;

  // Runs `ns` of work on the next free thread; `done` runs as an event when it has run. When the
  // job gets a thread, its start time is written to `*started_at` (if given).
  void submit(double ns, Callback done, double* started_at = nullptr);
  int threads() const { return threads_; }

private:
  struct Job {
    double ns;
    Callback done;
    double* started_at;
  };
  void start(const Job& job);
  void finished(uint64_t slot);

  HostCpu& cpu_;
  int threads_;
  int busy_ = 0;
  Ring<Job> queue_;
  std::vector<Callback> running_; // by slot
  std::vector<uint64_t> free_slots_;
};

} // namespace exsim
