// Window policies against their analytic behaviour on one channel: a sender that always has a
// request ready, a link that moves one request at a time at W bytes/s, then a fixed latency R.
#include "models/window/window.hpp"

#include <catch2/catch.hpp>

#include <cmath>
#include <functional>
#include <limits>
#include <queue>
#include <utility>
#include <vector>

using namespace exsim;

namespace {

struct Channel1 {
  double bytes = 16384;                                  // B per request
  double link_bytes_per_s = std::numeric_limits<double>::infinity(); // W
  std::function<double(double)> latency = [](double) { return 390e-6; }; // R at a request's start
};

struct Step {
  double t;
  int limit;
  int in_flight;
};

// Runs `n` requests on `w`, starting one whenever a slot is free; returns the limit after each answer.
std::vector<Step> run(Window& w, const Channel1& ch, int n) {
  using Done = std::pair<double, int>; // (answer time, slot)
  std::priority_queue<Done, std::vector<Done>, std::greater<>> answers;
  std::vector<Step> steps;
  double t = 0, link_free = 0;
  int started = 0;
  while (started < n || !answers.empty()) {
    while (started < n && w.has_free_slot()) {
      const int slot = w.start(t, static_cast<int64_t>(ch.bytes));
      const double sent = std::max(t, link_free) + ch.bytes / ch.link_bytes_per_s;
      link_free = sent;
      answers.push({sent + ch.latency(t), slot});
      ++started;
    }
    const auto [at, slot] = answers.top();
    answers.pop();
    t = at;
    w.finish(slot, t);
    steps.push_back({t, w.limit(), w.in_flight()});
  }
  return steps;
}

} // namespace

TEST_CASE("a fixed policy keeps its limit", "[unit][window]") {
  Window w(WindowPolicySpec{.kind = WindowPolicyKind::fixed, .initial = 3, .max = 3});
  for (const Step& s : run(w, Channel1{}, 100))
    CHECK(s.limit == 3);
  CHECK(w.capacity() == 3);
  CHECK(w.policy().trace().changes.empty()); // nothing traced for a fixed limit
}

TEST_CASE("bdp doubles while the link has room and stops within 2x of the bandwidth-delay product",
          "[unit][window]") {
  // W = 312.5 MB/s (a 12.5 Gbit/s NIC shared by 5 channels), R = 390 us, B = 16 KiB. The smallest
  // round trip is R + B/W; the link is full with N* = (R + B/W) W / B = 8.44 requests in flight.
  // Below N* a probe measures rate L B / (R + B/W), a product of L requests; from N* on, W, a
  // product of N*. Starting at 1 the limit doubles while the product exceeds 2/3 of it, so it stops
  // at the first power of two >= 1.5 N* = 12.7: 16.
  Channel1 ch;
  ch.link_bytes_per_s = 312.5e6;
  const double min_rtt = 390e-6 + ch.bytes / ch.link_bytes_per_s;
  const double n_star = min_rtt * ch.link_bytes_per_s / ch.bytes;
  REQUIRE(n_star == Approx(8.44).epsilon(0.01));
  int expected = 1;
  while (std::min<double>(expected, n_star) > 2.0 / 3.0 * expected)
    expected *= 2;
  REQUIRE(expected == 16);

  Window w(WindowPolicySpec{.kind = WindowPolicyKind::bdp, .initial = 1, .max = 64});
  const std::vector<Step> steps = run(w, ch, 3000);
  int last = 1;
  double reached_at = -1;
  for (const Step& s : steps) {
    CHECK(s.limit >= last); // it never shrinks
    last = s.limit;
    if (reached_at < 0 && s.limit == expected) reached_at = s.t;
  }
  CHECK(last == expected);
  REQUIRE(reached_at > 0);
  // Four doublings, each one probe's round trip (at most 2x the smallest while the link queues).
  CHECK(reached_at < 8 * min_rtt);
  CHECK(w.policy().trace().max == expected);
}

TEST_CASE("bdp stays where the sender, not the window, is slow", "[unit][window]") {
  // A round trip of R with no link limit and a cap of 4: the window is the bound, the limit
  // doubles to the cap in two probes and stays.
  Window w(WindowPolicySpec{.kind = WindowPolicyKind::bdp, .initial = 1, .max = 4});
  const std::vector<Step> steps = run(w, Channel1{}, 200);
  CHECK(steps.back().limit == 4);
  CHECK(w.policy().trace().changes.size() == 3); // 1, 2, 4
}

TEST_CASE("gradient grows to its cap while the round trip stays at its minimum, shrinks under pushback",
          "[unit][window]") {
  // Flat round trip: gradient 1, each answer adds sqrt(limit) (1, 2, 3.4, 5.3, 7.6, 10.3, 13.5, 16:
  // seven answers at the fastest) unless the request answered left with fewer than half the limit
  // in flight (it then says nothing about the window). The first round trip has one answer, the
  // next two, then three and more: the cap within four round trips.
  Channel1 ch;
  double pushback_from = std::numeric_limits<double>::infinity();
  double factor = 5;
  ch.latency = [&](double t) { return t >= pushback_from ? factor * 390e-6 : 390e-6; };
  Window w(WindowPolicySpec{.kind = WindowPolicyKind::gradient, .initial = 1, .max = 16});
  std::vector<Step> steps = run(w, ch, 20);
  int answers_to_cap = 0;
  while (steps[static_cast<size_t>(answers_to_cap)].limit < 16)
    ++answers_to_cap;
  CHECK(answers_to_cap + 1 >= 7);
  CHECK(steps[static_cast<size_t>(answers_to_cap)].t <= 4 * 390e-6 + 1e-12);

  // A receiver that pushes back: the round trip becomes 5x its minimum, the gradient is held at
  // 0.5, and the smoothed limit L -> 0.8 L + 0.2 (0.5 L + sqrt L) settles where 0.1 L = 0.2 sqrt L:
  // L = 4.
  pushback_from = steps.back().t;
  steps = run(w, ch, 400);
  CHECK(steps.back().limit == 4);
  // At 3x the gradient is 2/3: 0.2 (1 - 2/3) L = 0.2 sqrt L gives L = 9.
  factor = 3;
  steps = run(w, ch, 400);
  CHECK(steps.back().limit == 9);
}

TEST_CASE("gradient does not grow while fewer than half its limit are in flight", "[unit][window]") {
  WindowPolicy p({.kind = WindowPolicyKind::gradient, .initial = 8, .max = 16});
  for (int i = 0; i < 50; ++i) {
    p.on_start(0, i * 1e-3, 100, /*in_flight=*/1); // one at a time: the sender is what is slow
    p.on_finish(0, i * 1e-3 + 390e-6);
  }
  CHECK(p.limit() == 8);
}

TEST_CASE("a policy's limit over time: change points, time-weighted mean, largest", "[unit][window]") {
  LimitTrace t;
  t.record(0, 1);
  t.record(1, 1); // no change: not a point
  t.record(2, 4);
  t.record(2, 3); // the same instant: the last holds
  CHECK(t.changes.size() == 2);
  CHECK(t.mean(4) == Approx((2 * 1 + 2 * 3) / 4.0));
  CHECK(t.max == 4);
  WindowPolicyKind k;
  CHECK(parse_window_policy("gradient", k));
  CHECK(k == WindowPolicyKind::gradient);
  CHECK_FALSE(parse_window_policy("vegas", k));
  CHECK_THROWS_AS(WindowPolicy({.kind = WindowPolicyKind::bdp, .initial = 4, .max = 2}), std::logic_error);
}
