// A simulated thread (a fragment thread, a join build thread, a scanner thread) as a coroutine
// sees it: the host it runs on, the CPU work it owes, and its critical path. CPU work is charged
// as it is done (by class) and run on the host's cores at the next point where the thread must
// wait or do something others can see, so that a thread that only computes costs one piece of
// work per batch, not one per operator.
//   t.charge(PathPart::cpu_join_probe, rows * ns);
//   co_await t.flush();            // runs what is owed; the path gains the elapsed time
#pragma once

#include "models/core/coro.hpp"
#include "models/core/critical_path.hpp"
#include "models/cpu/host_cpu.hpp"

#include <array>
#include <coroutine>
#include <vector>

namespace exsim {

// Thrown at a wait when the query is being stopped (failed or cancelled); caught at the top of
// each thread, which then tears down what it holds.
struct Stop {};

class SimThread {
public:
  SimThread(Scheduler& s, HostCpu& cpu, const bool& stopping) : sched(s), cpu(cpu), stopping_(stopping) {}
  SimThread(const SimThread&) = delete;
  SimThread& operator=(const SimThread&) = delete;

  Scheduler& sched;
  HostCpu& cpu;
  Path path;             // the critical path that led to this thread's present
  double origin = 0;     // when the query started: path.total() == now() - origin while it runs
  double cpu_time_s = 0; // elapsed time of the CPU work it ran

  // After a wait ended by something else's progress: the path of that progress, when it is the
  // later of the two (the critical path is the one that arrived last).
  void adopt(const Path& p) { adopted_total(p); }
  // After a wait: time not yet accounted for goes to `part`.
  void catch_up(PathPart part) { catch_up(part, path.total()); }
  // adopt(p) then catch_up(part), each path summed once.
  void adopt_then_catch_up(const Path& p, PathPart part) { catch_up(part, adopted_total(p)); }

  double now() const { return sched.now(); }
  void check_stop() const {
    if (stopping_) throw Stop{};
  }

  void charge(PathPart part, double ns) {
    if (!(ns > 0)) return;
    debt_[static_cast<size_t>(part)] += ns;
    owed_ |= 1u << static_cast<unsigned>(part);
    debt_total_ += ns;
  }

  // CPU work charged and not yet run: a flush now would wait for it.
  bool owes_cpu() const { return debt_total_ > 0; }

  struct Flush {
    SimThread& t;
    double started = 0;
    double ns = 0;
    bool await_ready() noexcept {
      ns = t.debt_total_;
      return !t.owes_cpu();
    }
    void await_suspend(std::coroutine_handle<> h) {
      started = t.now();
      t.cpu.start(ns, resume_callback(h));
    }
    void await_resume() {
      if (ns > 0) t.settle(t.now() - started);
    }
  };
  // Runs the CPU work owed so far; the path gains its elapsed time, by class, the stretch caused
  // by sharing the cores counted as contention.
  Flush flush() { return Flush{*this}; }

private:
  // adopt(p); returns the total of the path kept.
  double adopted_total(const Path& p) {
    const double theirs = p.total();
    const double mine = path.total();
    if (!(theirs > mine)) return mine;
    path = p;
    return theirs;
  }
  void catch_up(PathPart part, double total) {
    const double gap = (now() - origin) - total;
    if (gap > 0) path.add(part, gap);
  }
  void settle(double elapsed) {
    // The parts charged, in their order (only they can be owed anything).
    for (uint32_t m = owed_; m != 0; m &= m - 1) {
      const auto i = static_cast<size_t>(__builtin_ctz(m));
      path.add(static_cast<PathPart>(i), debt_[i] * 1e-9);
      debt_[i] = 0;
    }
    owed_ = 0;
    path.add(PathPart::cpu_contention, elapsed - debt_total_ * 1e-9);
    cpu_time_s += elapsed;
    debt_total_ = 0;
  }

  const bool& stopping_;
  std::array<double, kPathParts> debt_{};
  static_assert(kPathParts <= 32, "owed_ has a bit per part");
  uint32_t owed_ = 0; // parts charged since the last flush (bit per part)
  double debt_total_ = 0;
};

// A one-time event many coroutines may wait for (a join build done, an exchange finished).
class Signal {
public:
  bool is_set() const { return set_; }
  void set(Scheduler& s) {
    if (set_) return;
    set_ = true;
    wake_all(s);
  }
  // Set by a thread whose progress the waiters then carry on their critical path (a join build:
  // the probe that waited for it takes the build's path when the build arrived last).
  void set(Scheduler& s, const Path& by) {
    if (set_) return;
    path_ = by;
    set(s);
  }
  const Path& path() const { return path_; }
  // Wakes the waiters without setting (they check why they were woken).
  void wake_all(Scheduler& s) {
    for (auto h : waiters_)
      s.post(resume_callback(h));
    waiters_.clear();
  }
  struct Awaiter {
    Signal& sig;
    bool await_ready() const noexcept { return sig.set_; }
    void await_suspend(std::coroutine_handle<> h) { sig.waiters_.push_back(h); }
    void await_resume() const noexcept {}
  };
  Awaiter wait() { return Awaiter{*this}; }

private:
  bool set_ = false;
  Path path_;
  std::vector<std::coroutine_handle<>> waiters_;
};

} // namespace exsim
