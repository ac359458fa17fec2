// Threads of the simulated daemons (fragment threads, scanner threads) are C++20 coroutines:
// sequential code that suspends at `co_await` (CPU work, a free channel slot, a batch to read)
// and is resumed by an event of the Scheduler. No OS-level context per thread; coroutine frames
// come from a pool, so a running simulation does not allocate per batch or per RPC.
// The stack never grows with the number of sub-tasks a thread awaits: a sub-task that ends
// without suspending hands control back by returning, not by resuming its caller (symmetric
// transfer would rely on the compiler turning that resumption into a tail call, which unoptimised
// builds do not do).
//   exsim::Task body() { co_await thread.flush(); co_await sub_task(); }
//   exsim::Task t = body(); t.start(sched, on_done);      // runs from the next event
#pragma once

#include "models/core/scheduler.hpp"

#include <coroutine>
#include <cstddef>
#include <exception>
#include <utility>

namespace exsim {

// Coroutine frames are recycled by size class (the simulation is single-threaded).
void* frame_alloc(std::size_t bytes);
void frame_free(void* p, std::size_t bytes) noexcept;

// An event that resumes a suspended coroutine.
inline Callback resume_callback(std::coroutine_handle<> h) {
  return {[](void* p, uint64_t) { std::coroutine_handle<>::from_address(p).resume(); }, h.address(), 0};
}

class Task {
public:
  struct promise_type {
    std::coroutine_handle<> continuation; // the awaiting coroutine, if any
    bool inline_run = false; // running inside the awaiter's await_suspend (see Task::await_suspend)
    std::exception_ptr error;
    Callback on_done; // root tasks: called when the body has ended (it must not destroy the task)

    static void* operator new(std::size_t n) { return frame_alloc(n); }
    static void operator delete(void* p, std::size_t n) noexcept { frame_free(p, n); }

    Task get_return_object() { return Task(std::coroutine_handle<promise_type>::from_promise(*this)); }
    std::suspend_always initial_suspend() noexcept { return {}; }
    struct Final {
      bool await_ready() const noexcept { return false; }
      std::coroutine_handle<> await_suspend(std::coroutine_handle<promise_type> h) noexcept {
        promise_type& p = h.promise();
        if (p.inline_run) return std::noop_coroutine(); // the awaiter's await_suspend goes on
        if (p.continuation) return p.continuation;
        if (p.on_done) p.on_done();
        return std::noop_coroutine();
      }
      void await_resume() const noexcept {}
    };
    Final final_suspend() noexcept { return {}; }
    void return_void() {}
    void unhandled_exception() { error = std::current_exception(); }
  };

  Task() = default;
  Task(Task&& o) noexcept : h_(std::exchange(o.h_, {})) {}
  Task& operator=(Task&& o) noexcept {
    if (this != &o) {
      if (h_) h_.destroy();
      h_ = std::exchange(o.h_, {});
    }
    return *this;
  }
  Task(const Task&) = delete;
  Task& operator=(const Task&) = delete;
  ~Task() {
    if (h_) h_.destroy();
  }

  // `co_await task` runs it to its end inside the awaiting coroutine; its exception propagates.
  // The task runs at once, from here. If it ends without suspending, the awaiter goes on by
  // returning false (no resumption, no deeper stack); if it suspends, it resumes the awaiter when
  // it ends, from the event that ended it.
  bool await_ready() const noexcept { return !h_ || h_.done(); }
  bool await_suspend(std::coroutine_handle<> awaiter) noexcept {
    promise_type& p = h_.promise();
    p.continuation = awaiter;
    p.inline_run = true;
    h_.resume();
    if (h_.done()) return false;
    p.inline_run = false;
    return true;
  }
  void await_resume() const {
    if (h_ && h_.promise().error) std::rethrow_exception(h_.promise().error);
  }

  // A root task: starts at the current time (as the next event), calls on_done when it ends.
  void start(Scheduler& s, Callback on_done) {
    h_.promise().on_done = on_done;
    s.post(resume_callback(h_));
  }
  std::exception_ptr error() const { return h_ ? h_.promise().error : nullptr; }

private:
  explicit Task(std::coroutine_handle<promise_type> h) : h_(h) {}
  std::coroutine_handle<promise_type> h_;
};

// One coroutine waiting for one wake-up (a channel slot, a batch, a build): the waking side calls
// wake(), which resumes the coroutine as the next event, never in the middle of the caller.
class Waiter {
public:
  bool waiting() const { return static_cast<bool>(h_); }
  struct Awaiter {
    Waiter& w;
    bool await_ready() const noexcept { return false; }
    void await_suspend(std::coroutine_handle<> h) noexcept { w.h_ = h; }
    void await_resume() const noexcept {}
  };
  Awaiter wait() { return Awaiter{*this}; }
  // Resumes the waiting coroutine, if any, at the current time.
  void wake(Scheduler& s) {
    if (!h_) return;
    const std::coroutine_handle<> h = std::exchange(h_, {});
    s.post(resume_callback(h));
  }

private:
  std::coroutine_handle<> h_;
};

// `co_await SleepUntil{sched, t}`: resumes at time t (at once if t has passed).
struct SleepUntil {
  Scheduler& sched;
  double t;
  bool await_ready() const noexcept { return !(t > sched.now()); }
  void await_suspend(std::coroutine_handle<> h) { sched.at(t, resume_callback(h)); }
  void await_resume() const noexcept {}
};

} // namespace exsim
