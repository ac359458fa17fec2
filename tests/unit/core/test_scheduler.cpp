// The models' event queue (models/core/scheduler.hpp): the fast paths (after() keeping events of
// one delay in a queue per delay, advance_to() letting the engine post what happened at an
// instant as due now) run every event at the same time and in the same order as at() alone.
#include "models/core/scheduler.hpp"

#include <catch2/catch.hpp>

#include <cstdint>
#include <utility>
#include <vector>

using namespace exsim;

namespace {

// Events that log (time, id) and, by a fixed pseudo-random rule, schedule more: some at a
// route's delay (after() in one scheduler, at(now + delay) in the other), some at other times,
// some now.
struct Run {
  Scheduler s;
  bool use_after = false;
  std::vector<std::pair<double, uint64_t>> log;
  uint64_t next_id = 0;
  uint64_t rng = 88172645463325252ULL;

  uint64_t draw() {
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng;
  }
  void fire(uint64_t id) {
    log.emplace_back(s.now(), id);
    if (next_id >= 20000) return;
    const int children = 1 + static_cast<int>(draw() % 2);
    for (int k = 0; k < children; ++k) {
      const uint64_t c = next_id++;
      const uint64_t r = draw() % 6;
      const double delays[] = {195e-6, 20e-6, 195e-6};
      if (r < 3) { // a route's latency (two routes share one)
        const Callback cb = Callback::of<&Run::fire>(this, c);
        if (use_after)
          s.after(delays[r], cb);
        else
          s.at(s.now() + delays[r], cb);
      } else if (r < 5) { // CPU work: any time, half of them at a route's arrival time (ties)
        const double d = draw() % 2 == 0 ? delays[draw() % 3] : static_cast<double>(draw() % 4) * 65e-6;
        s.at(s.now() + d, Callback::of<&Run::fire>(this, c));
      } else {
        s.post(Callback::of<&Run::fire>(this, c));
      }
    }
  }
  void run() {
    for (int i = 0; i < 8; ++i)
      s.at(static_cast<double>(i) * 1e-5, Callback::of<&Run::fire>(this, next_id++));
    while (!s.empty())
      s.run_next_instant();
  }
};

} // namespace

TEST_CASE("after(delay) runs the events as at(now + delay) does, in the same order", "[scheduler]") {
  Run plain, lanes;
  lanes.use_after = true;
  plain.run();
  lanes.run();
  INFO("expected the same " << plain.log.size() << " events, in the same order, at the same times");
  REQUIRE(plain.log.size() > 10000);
  for (size_t i = 1; i < plain.log.size(); ++i)
    REQUIRE(plain.log[i - 1].first <= plain.log[i].first); // the heap itself keeps time order
  REQUIRE(lanes.log == plain.log);
}

TEST_CASE("advance_to: what is posted at the new time runs after the heap's events at that time",
          "[scheduler]") {
  Scheduler s;
  std::vector<int> order;
  auto note = [](void* v, uint64_t i) { static_cast<std::vector<int>*>(v)->push_back(static_cast<int>(i)); };
  s.at(1.0, {note, &order, 1});
  s.at(2.0, {note, &order, 3});
  s.run_until(0.5);
  s.advance_to(1.0); // every event before 1.0 has run: the clock moves
  REQUIRE(s.now() == 1.0);
  s.post({note, &order, 2}); // due now: after the heap's event at 1.0, which was scheduled first
  s.run_until(1.0);
  REQUIRE(order == std::vector<int>{1, 2});
  s.advance_to(2.5); // the event at 2.0 has not run: nothing moves
  REQUIRE(s.now() == 1.0);
  s.run_until(2.5);
  REQUIRE(order == std::vector<int>{1, 2, 3});
}
