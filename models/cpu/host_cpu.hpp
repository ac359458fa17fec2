// The hardware threads of one executor as the models see them: every piece of CPU work (a
// fragment thread's operators, a sender's serialization, a scanner thread's decoding, a service
// thread's deserialization) runs here, shared by the rule of shared_cpu.hpp, with one pending
// Scheduler event at the next completion.
//   exsim::HostCpu cpu(sched, 8, 2, 0.26);
//   uint64_t h = cpu.start(ns, callback); cpu.cancel(h);    // a thread's CPU: SimThread::flush
#pragma once

#include "models/core/coro.hpp"
#include "models/core/scheduler.hpp"
#include "models/cpu/shared_cpu.hpp"

#include <coroutine>
#include <cstdint>
#include <limits>
#include <vector>

namespace exsim {

class HostCpu {
public:
  HostCpu(Scheduler& s, int cores, int threads_per_core, double second_thread_gain);
  HostCpu(const HostCpu&) = delete;
  HostCpu& operator=(const HostCpu&) = delete;

  // Starts `ns` nanoseconds of one thread's work now; `done` runs as an event when it has run.
  uint64_t start(double ns, Callback done);
  // Withdraws a piece that has not finished (its callback never runs).
  void cancel(uint64_t handle);

  double now() const { return sched_.now(); }

private:
  void reschedule();
  void fire(uint64_t generation);

  Scheduler& sched_;
  SharedCpu model_;
  std::vector<Callback> callbacks_; // by slot (the pieces' tags)
  std::vector<uint64_t> free_slots_;
  std::vector<uint64_t> done_;
  std::vector<Callback> due_;
  uint64_t generation_ = 0;
  double armed_at_ = std::numeric_limits<double>::infinity();
};

} // namespace exsim
