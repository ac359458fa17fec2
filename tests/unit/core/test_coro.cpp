// Simulated threads as coroutines (models/core/coro.hpp): sub-tasks run inside their caller, in order,
// and the stack does not grow with the number of sub-tasks awaited, in any build.
#include "models/core/coro.hpp"

#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdint>
#include <stdexcept>
#include <vector>

using namespace exsim;

namespace {

struct Probe {
  std::uintptr_t lowest = UINTPTR_MAX;
  std::uintptr_t highest = 0;
  long calls = 0;
  std::vector<std::pair<double, int>> log; // (time, step) in the order the steps ran
};

// Notes how deep the stack is where it is called (a coroutine's own locals live in its frame, on
// the heap, so the probe is an ordinary function).
[[gnu::noinline]] void note_stack_depth(Probe& p) {
  volatile char mark = 0;
  const auto at = reinterpret_cast<std::uintptr_t>(&mark);
  p.lowest = std::min(p.lowest, at);
  p.highest = std::max(p.highest, at);
  ++p.calls;
}

// Ends without suspending.
Task sync_child(Probe& p) {
  note_stack_depth(p);
  co_return;
}

Task sync_loop(Probe& p, long n) {
  for (long i = 0; i < n; ++i)
    co_await sync_child(p);
}

Task sleeping_child(Scheduler& s, Probe& p, double until, int step) {
  p.log.emplace_back(s.now(), step);
  co_await SleepUntil{s, until};
  p.log.emplace_back(s.now(), step + 1);
}

Task parent(Scheduler& s, Probe& p) {
  p.log.emplace_back(s.now(), 0);
  co_await sleeping_child(s, p, 1.0, 1);
  p.log.emplace_back(s.now(), 3);
  co_await sync_child(p);
  co_await sleeping_child(s, p, 2.5, 4);
  p.log.emplace_back(s.now(), 6);
}

Task throwing_child() {
  throw std::runtime_error("from the child");
  co_return;
}

Task catching_parent(bool& caught) {
  try {
    co_await throwing_child();
  } catch (const std::runtime_error&) {
    caught = true;
  }
}

void run(Scheduler& s) {
  while (!s.empty())
    s.run_next_instant();
}

} // namespace

TEST_CASE("a thread awaiting many sub-tasks that end at once keeps a flat stack", "[unit][coro]") {
  // Expectation: every sub-task's frame sits at the same stack depth; 200,000 of them in a row
  // would need 200,000 nested frames (tens of MiB, past the main thread's stack) if each one's
  // end resumed its caller instead of returning to it.
  Scheduler s;
  Probe p;
  bool done = false;
  Task t = sync_loop(p, 200000);
  t.start(s, {[](void* d, uint64_t) { *static_cast<bool*>(d) = true; }, &done, 0});
  run(s);
  CHECK(done);
  CHECK(p.calls == 200000);
  INFO("stack spread over the sub-tasks: " << (p.highest - p.lowest) << " bytes");
  CHECK(p.highest - p.lowest == 0);
}

TEST_CASE("a sub-task that suspends resumes its caller when it ends, at its own time", "[unit][coro]") {
  Scheduler s;
  Probe p;
  bool done = false;
  Task t = parent(s, p);
  t.start(s, {[](void* d, uint64_t) { *static_cast<bool*>(d) = true; }, &done, 0});
  run(s);
  CHECK(done);
  const std::vector<std::pair<double, int>> expected = {{0.0, 0}, {0.0, 1}, {1.0, 2}, {1.0, 3},
                                                        {1.0, 4}, {2.5, 5}, {2.5, 6}};
  CHECK(p.log == expected);
  CHECK(p.calls == 1);
}

TEST_CASE("a sub-task's exception reaches the awaiting thread", "[unit][coro]") {
  Scheduler s;
  bool caught = false;
  Task t = catching_parent(caught);
  t.start(s, {});
  run(s);
  CHECK(caught);
  CHECK_FALSE(t.error());
}
