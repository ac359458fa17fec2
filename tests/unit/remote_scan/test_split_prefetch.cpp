// The split prefetcher's rules, driven by a hand-made clock: every GET takes its time to first
// byte plus bytes / a fixed rate, with no sharing, so each expectation is arithmetic.
#include "input/remote_scan.hpp"
#include "models/remote_scan/scan_bound.hpp"
#include "models/remote_scan/split_prefetch.hpp"

#include <catch2/catch.hpp>

#include <algorithm>
#include <map>
#include <utility>

using namespace exsim;

namespace {

// The Scheduler by hand, and an object store whose GET ends ttfb + bytes / rate after it started.
struct HandClock : ObjectStore {
  Scheduler sched;
  double rate_bps = 0; // bytes per second per GET; 0: transfers take no time

  void get(int64_t bytes, double ttfb_s, Callback done) override {
    sched.at(sched.now() + ttfb_s + (rate_bps > 0 ? static_cast<double>(bytes) / rate_bps : 0.0), done);
  }

  void run(SplitPrefetcher& p) {
    bool finished = false;
    p.start({[](void* f, uint64_t) { *static_cast<bool*>(f) = true; }, &finished, 0});
    while (!sched.empty() && !finished)
      sched.run_next_instant();
    CHECK(finished == p.done());
  }
};

// The parameter table's defaults, as a remote-scan scenario that sets nothing of the prefetch reads
// them.
PrefetchConfig table_defaults() {
  const nlohmann::json doc = {
      {"schema_version", 2}, {"kind", "remote_scan"}, {"splits", {{"count", 1}, {"data_bytes_total", 1}}}};
  return load_remote_scan(doc, "defaults").remote_scan->prefetch;
}

PrefetchConfig constant_latency(double ttfb_s) {
  PrefetchConfig c = table_defaults();
  c.ttfb_p50_s = c.footer_ttfb_p50_s = ttfb_s;
  c.ttfb_p99_s = c.footer_ttfb_p99_s = ttfb_s;
  c.scan_drivers = 1;
  c.series_step_s = 0.05;
  return c;
}

} // namespace

TEST_CASE("a split's data is fetched in near-equal parts of at most part_bytes", "[unit][prefetch]") {
  CHECK(SplitPrefetcher::parts_of(10, 4) == std::vector<int64_t>{4, 3, 3});
  CHECK(SplitPrefetcher::parts_of(8, 4) == std::vector<int64_t>{4, 4});
  CHECK(SplitPrefetcher::parts_of(1, 4) == std::vector<int64_t>{1});
}

TEST_CASE("C splits in flight: each wave costs a footer and a data round trip", "[unit][prefetch]") {
  // 6 splits, all planned at once (footers back at T), loaded 2 at a time: T + 3 x T.
  const double T = 0.1;
  PrefetchConfig c = constant_latency(T);
  c.split_concurrency = 2;
  HandClock clock;
  SplitPrefetcher p(c, std::vector<int64_t>(6, 1000), clock.sched, clock);
  clock.run(p);
  REQUIRE(p.done());
  const PrefetchCounters& k = p.counters();
  CHECK(k.end_s == Approx(4 * T));
  CHECK(k.first_split_s == Approx(2 * T));
  CHECK(k.planned_at_first_split == 6);
  CHECK(k.footer_gets == 6);
  CHECK(k.data_gets == 6);
  CHECK(k.splits == 6);
  CHECK(k.bytes() == 6 * 1000 + 6 * c.footer_bytes);
  CHECK(k.peak_splits_in_flight == 2);
  // At 2T split 1 is loaded, not yet taken (the driver took split 0), while 2 and 3 start.
  CHECK(k.peak_bytes_reserved == 3000);
  CHECK(k.limited_s[static_cast<int>(PrefetchLimit::prefetch_concurrency)] == Approx(2 * T));
  // The series holds the state at every step: two splits loading from T to 4T.
  const PrefetchSeries& s = p.series();
  REQUIRE(s.t_s.size() == s.splits_in_flight.size());
  CHECK(s.t_s.front() == 0);
  CHECK(s.t_s.back() == Approx(4 * T));
  CHECK(s.splits_in_flight[3] == 2); // t = 0.15
  CHECK(s.splits_in_flight.back() == 0);
}

TEST_CASE("the plan-ahead window: only the first P queued splits are planned", "[unit][prefetch]") {
  const double T = 0.1;
  PrefetchConfig c = constant_latency(T);
  c.split_concurrency = 8;
  c.plan_ahead_splits = 2;
  HandClock clock;
  SplitPrefetcher p(c, std::vector<int64_t>(4, 1000), clock.sched, clock);
  clock.run(p);
  // Splits 0,1 planned at T, loaded at 2T and taken; 2,3 planned at 3T, loaded at 4T. Free C
  // slots and unplanned splits until 3T: the plan-ahead window limits.
  CHECK(p.counters().planned_at_first_split == 2);
  CHECK(p.counters().end_s == Approx(4 * T));
  CHECK(p.counters().limited_s[static_cast<int>(PrefetchLimit::plan_ahead)] == Approx(3 * T));
}

TEST_CASE("the byte window holds loaded splits until a driver takes them", "[unit][prefetch]") {
  // B fits one split and a half: one split at a time; the driver waits for the earliest split,
  // which jumps the queue. 6 splits: T (footers) + 6 x T.
  const double T = 0.1;
  PrefetchConfig c = constant_latency(T);
  c.split_concurrency = 4;
  c.max_in_flight_bytes = 1500;
  HandClock clock;
  SplitPrefetcher p(c, std::vector<int64_t>(6, 1000), clock.sched, clock);
  clock.run(p);
  CHECK(p.counters().end_s == Approx(7 * T));
  CHECK(p.counters().peak_splits_in_flight == 1);
  CHECK(p.counters().peak_bytes_reserved == 1000);
  // Registered splits waited for bytes from T until the last one started at 6T.
  CHECK(p.counters().limited_s[static_cast<int>(PrefetchLimit::prefetch_bytes)] == Approx(5 * T));
}

TEST_CASE("a waited-for split may exceed the byte window, never C", "[unit][prefetch]") {
  const double T = 0.1;
  PrefetchConfig c = constant_latency(T);
  c.split_concurrency = 4;
  c.max_in_flight_bytes = 500; // smaller than any split: only demanded splits ever load
  HandClock clock;
  SplitPrefetcher p(c, std::vector<int64_t>(3, 1000), clock.sched, clock);
  clock.run(p);
  REQUIRE(p.done());
  CHECK(p.counters().end_s == Approx(4 * T));
  CHECK(p.counters().peak_bytes_reserved == 1000); // over B by the one demanded split
}

TEST_CASE("the consumer: one device shared by the drivers, splits consumed at its rate", "[unit][prefetch]") {
  // Loading is instant after 2T; 4 splits of 1e9 bytes at 1 ns a byte on 2 drivers sharing one
  // device: 4 s of device time whatever the sharing.
  PrefetchConfig c = constant_latency(0.001);
  c.split_concurrency = 4;
  c.scan_drivers = 2;
  c.consumer_ns_per_byte = 1;
  c.part_bytes = int64_t{1} << 40;
  HandClock clock;
  SplitPrefetcher p(c, std::vector<int64_t>(4, 1000000000), clock.sched, clock);
  clock.run(p);
  CHECK(p.counters().end_s == Approx(0.002 + 4.0));
  CHECK(p.counters().consumer_busy_s == Approx(4.0));
  CHECK(p.counters().consumer_first_wait_s == Approx(0.002));
}

TEST_CASE("data GETs in flight per process bound the parts, footers go at once", "[unit][prefetch]") {
  const double T = 0.1;
  PrefetchConfig c = constant_latency(T);
  c.split_concurrency = 8;
  c.max_gets_in_flight = 1;
  HandClock clock;
  SplitPrefetcher p(c, std::vector<int64_t>(3, 1000), clock.sched, clock);
  clock.run(p);
  // The three footers together, then the three data GETs one after another.
  CHECK(p.counters().end_s == Approx(4 * T));
  CHECK(p.counters().peak_gets_in_flight == 3); // the footers
  CHECK(p.counters().footer_gets == 3);
  CHECK(p.counters().limited_s[static_cast<int>(PrefetchLimit::gets_in_flight)] > 0);
}

TEST_CASE("ready-first consumes past a slow split, in order waits for it", "[unit][prefetch]") {
  // Split 0 is 100x larger: at 1e5 B/s it loads in 1 s, the others in 10 ms. One driver,
  // 1 us a byte of consumer time (1 ms a small split, 0.1 s the large one).
  auto run = [](Consumption mode) {
    PrefetchConfig c = constant_latency(1e-6);
    c.split_concurrency = 8;
    c.consumption = mode;
    c.consumer_ns_per_byte = 1000;
    c.footer_bytes = 1;
    HandClock clock;
    clock.rate_bps = 1e5;
    std::vector<int64_t> bytes(5, 1000);
    bytes[0] = 100000;
    SplitPrefetcher p(c, bytes, clock.sched, clock);
    clock.run(p);
    return p.counters();
  };
  const PrefetchCounters ready = run(Consumption::ready_first);
  const PrefetchCounters ordered = run(Consumption::in_order);
  const double planned = 1e-6 + 1e-5;               // footer: first byte, then 1 byte
  const double large_loaded = planned + 1e-6 + 1.0; // its data
  // Ready-first consumes the four small splits while the large one loads, then the large one.
  CHECK(ready.end_s == Approx(large_loaded + 0.1));
  // In order waits for the large one first, then consumes the four small ones (already loaded).
  CHECK(ordered.end_s == Approx(large_loaded + 0.1 + 4 * 0.001));
  CHECK(ordered.consumer_wait_s == Approx(large_loaded));
  CHECK(ready.consumer_wait_s == Approx(large_loaded - 4 * 0.001));
}

TEST_CASE("the remote-scan bound rule, in order", "[unit][prefetch]") {
  ScanBoundFigures f;
  f.span_s = 10;
  f.mean_ttfb_s = 0.2;
  f.mean_transfer_s = 0.1;
  f.mean_stream_bps = 90e6;
  f.stream_cap_bps = 90e6;
  CHECK(classify_scan_bound(f) == ScanBound::window); // latency dominates each request
  f.mean_transfer_s = 0.3;
  CHECK(classify_scan_bound(f) == ScanBound::s3_stream);
  f.mean_stream_bps = 50e6; // shared below the cap: not the stream's cap
  CHECK(classify_scan_bound(f) == ScanBound::window);
  f.nic_utilization = 0.85;
  CHECK(classify_scan_bound(f) == ScanBound::nic);
  f.consumer_busy_s = 8;
  CHECK(classify_scan_bound(f) == ScanBound::consumer);
  CHECK(to_string(ScanBound::s3_stream) == "s3_stream");
}

TEST_CASE("split sizes: equal at cv 0, spread but exact in total otherwise", "[unit][prefetch]") {
  CHECK(spread_split_bytes(3, 10, 0, 1) == std::vector<int64_t>{4, 3, 3});
  const std::vector<int64_t> b = spread_split_bytes(1000, 23000000000, 0.3, 7);
  int64_t sum = 0;
  for (int64_t x : b)
    sum += x;
  CHECK(sum == 23000000000);
  CHECK(*std::max_element(b.begin(), b.end()) > 2 * *std::min_element(b.begin(), b.end()));
  CHECK(spread_split_bytes(1000, 23000000000, 0.3, 7) == b); // seeded
  CHECK_THROWS_AS(spread_split_bytes(5, 4, 0, 1), std::logic_error);
}

TEST_CASE("planned-first: drivers bind planned splits, so the plan-ahead window slides early",
          "[unit][prefetch]") {
  // P = 4, two drivers. Footers are back at T; the drivers bind splits 0 and 1 at once (their
  // data not loaded yet), which lets splits 4 and 5 be planned before any data arrives:
  // 6 planned at the first split's completion, against 4 when drivers wait for loaded splits.
  auto planned_then = [](Consumption mode) {
    PrefetchConfig c = constant_latency(0.1);
    c.split_concurrency = 8;
    c.plan_ahead_splits = 4;
    c.scan_drivers = 2;
    c.footer_bytes = 1;
    c.consumption = mode;
    HandClock clock;
    clock.rate_bps = 1e6; // data: 1 ms after its first byte
    SplitPrefetcher p(c, std::vector<int64_t>(8, 1000), clock.sched, clock);
    clock.run(p);
    return p.counters().planned_at_first_split;
  };
  CHECK(planned_then(Consumption::planned_first) == 6);
  CHECK(planned_then(Consumption::in_order) == 6);
  CHECK(planned_then(Consumption::ready_first) == 4);
}
