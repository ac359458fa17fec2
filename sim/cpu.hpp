// The cores of one simulated executor. Every piece of CPU work in exsim (a sender's hashing and
// serialization, a receiver's deserialization and consumer) runs here, shared by the rule of
// models/shared_cpu.hpp, which is the rule SimGrid applies to executions on a multi-core host.
// exsim keeps the sharing itself instead of starting a SimGrid execution per piece: a kernel
// timer fires at the next completion and the piece's owner is told through a callback. That is
// the same timing for a fraction of the cost (a SimGrid execution enters the sharing solver and
// the activity machinery; hundreds of thousands of them per query dominated the run time).
//   HostCpu& cpu = sim.cpu(host_index);
//   cpu.run(ns, wake);                                     // blocks the calling actor
//   uint64_t id = cpu.start(ns, [](uint64_t id) { ... });  // called in the kernel when done
//   cpu.cancel(id);
#pragma once

#include "models/shared_cpu.hpp"

#include <simgrid/s4u.hpp>

#include <cstdint>
#include <functional>
#include <unordered_map>
#include <vector>

namespace simgrid::kernel::timer {
class Timer;
}

namespace exsim {

namespace sg4 = simgrid::s4u;

class HostCpu {
public:
  // Runs in the simulation kernel when piece `id` is done: it may release a semaphore or queue
  // an event, but must not block.
  using Done = std::function<void(uint64_t id)>;

  explicit HostCpu(int cores) : model_(cores) {}
  HostCpu(const HostCpu&) = delete;
  HostCpu& operator=(const HostCpu&) = delete;

  // Starts `ns` nanoseconds of one core's work now; `done` is called when it has run.
  uint64_t start(double ns, Done done);
  // Withdraws a piece that has not finished (its callback is never called).
  void cancel(uint64_t id);
  // Runs `ns` of work for the calling actor, which waits on `wake` (a semaphore of its own,
  // at zero) until the work is done.
  void run(double ns, const sg4::SemaphorePtr& wake);

private:
  void reschedule();
  void fire();

  SharedCpu model_;
  std::unordered_map<uint64_t, Done> done_;
  simgrid::kernel::timer::Timer* timer_ = nullptr;
  double timer_at_ = 0;
  std::vector<uint64_t> finished_;
};

} // namespace exsim
