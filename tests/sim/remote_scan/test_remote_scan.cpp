// Remote scan on SimGrid against analytic expectations: the C window, the NIC, the consumer, the
// byte window before C, and ready-first against in-order consumption with one slow split.
#include "sim_support.hpp"

using namespace exsim::test;

namespace {

constexpr double kMB = 1e6;

// One executor, constant time to first byte `ttfb_s`, one GET per split, one driver, no
// consumer cost, every split planned at once (plan-ahead larger than the splits).
json scan(int splits, int64_t split_bytes, double ttfb_s, double stream_mb_per_s, double nic_gbps, int c) {
  const double ttfb_ms = ttfb_s * 1e3;
  return {{"schema_version", 1},
          {"kind", "remote_scan"},
          {"cluster", {{"executors", 1}, {"nic_bandwidth_gbps", nic_gbps}}},
          {"s3",
           {{"data_ttfb_p50_ms", ttfb_ms},
            {"data_ttfb_p99_ms", ttfb_ms},
            {"footer_ttfb_p50_ms", ttfb_ms},
            {"footer_ttfb_p99_ms", ttfb_ms},
            {"stream_mb_per_s", stream_mb_per_s}}},
          {"splits", {{"count", splits}, {"data_bytes_total", splits * split_bytes}, {"footer_bytes", 1}}},
          {"prefetch",
           {{"executorSplitPrefetchConcurrency", c},
            {"plan_ahead_splits", 100000},
            {"max_gets_in_flight", 100000},
            {"part_bytes", int64_t{1000000000000}}}},
          {"scan", {{"drivers", 1}}}};
}

const json& executor0(const json& r) {
  return r.at("executors").at(0);
}

} // namespace

TEST_CASE("window-bound: C splits per split latency, C x split bytes / latency", "[sim][remote_scan]") {
  // 64 splits of 1 MB, C = 8, 50 ms to first byte, 100 MB/s per stream, a NIC 100x faster than
  // 8 streams: a split costs 50 ms + 10 ms once planned (every footer back at 50 ms + 10 ns).
  const double ttfb = 0.05, latency = ttfb + kMB / (100 * kMB), footer = ttfb + 1 / (100 * kMB);
  const json r = simulate_doc(scan(64, 1000000, ttfb, 100, 640, 8));
  const double expected = footer + 64 / 8 * latency;
  const double simulated = r.at("summary").at("makespan_s").get<double>();
  show("window-bound: makespan_s (footer + N/C x latency)", expected, simulated);
  show("window-bound: data throughput MB/s (C x S / latency)", 8 * kMB / latency / kMB,
       64 * kMB / (simulated - footer) / kMB);
  CHECK(simulated == Approx(expected).epsilon(1e-6));
  CHECK(executor0(r).at("peak_splits_in_flight") == 8);
  CHECK(executor0(r).at("bound") == "window");
  CHECK(executor0(r).at("window_limit") == "prefetch_concurrency");
  CHECK(executor0(r).at("data_gets") == 64);
  CHECK(executor0(r).at("footer_gets") == 64);
}

TEST_CASE("NIC-bound: bytes / NIC bandwidth once many streams share it", "[sim][remote_scan]") {
  // 64 splits of 2 MB, C = 64 streams at 100 MB/s would move 6.4 GB/s; the 1 Gbit/s NIC moves
  // 125 MB/s. Expected: footers, one time to first byte, then every byte at the NIC's rate.
  const double ttfb = 0.001;
  const json r = simulate_doc(scan(64, 2000000, ttfb, 100, 1, 64));
  const double bytes = r.at("summary").at("bytes").get<double>();
  const double expected = ttfb + 64 / (1e9 / 8) + ttfb + (bytes - 64) / (1e9 / 8);
  const double simulated = r.at("summary").at("makespan_s").get<double>();
  show("NIC-bound: makespan_s (2 TTFB + bytes / NIC)", expected, simulated);
  CHECK(simulated == Approx(expected).epsilon(1e-3));
  CHECK(executor0(r).at("bound") == "nic");
  CHECK(executor0(r).at("nic_utilization").get<double>() > 0.99);
}

TEST_CASE("consumer-bound: the consumer's time per byte sets the pace", "[sim][remote_scan]") {
  // 32 splits of 1 MB loaded in about 2 ms each, 8 at a time; the consumer needs 10 ns a byte:
  // 10 ms a split, 320 ms in all after the first split arrives.
  json doc = scan(32, 1000000, 0.001, 1000, 1000, 8);
  doc["scan"]["consumer_ns_per_byte"] = 10;
  const json r = simulate_doc(doc);
  const double first = executor0(r).at("first_split_s").get<double>();
  const double expected = first + 32 * 1e6 * 10e-9;
  const double simulated = r.at("summary").at("makespan_s").get<double>();
  show("consumer-bound: makespan_s (first split + bytes x ns/B)", expected, simulated);
  CHECK(simulated == Approx(expected).epsilon(1e-6));
  CHECK(executor0(r).at("bound") == "consumer");
  CHECK(executor0(r).at("consumer_busy_s").get<double>() == Approx(0.32).epsilon(1e-6));
}

TEST_CASE("the byte window binds before C: B / split bytes splits in flight", "[sim][remote_scan]") {
  // C = 16 but prefetchMaxInFlightBytes holds 4 splits: 4 in flight, as if C were 4.
  const double ttfb = 0.05, latency = ttfb + kMB / (100 * kMB), footer = ttfb + 1 / (100 * kMB);
  json doc = scan(64, 1000000, ttfb, 100, 640, 16);
  doc["prefetch"]["prefetchMaxInFlightBytes"] = 4000000;
  const json r = simulate_doc(doc);
  const double expected = footer + 64 / 4 * latency;
  const double simulated = r.at("summary").at("makespan_s").get<double>();
  show("byte window: makespan_s (footer + N / (B/S) x latency)", expected, simulated);
  show("byte window: peak splits in flight (B / S, not C = 16)", 4,
       executor0(r).at("peak_splits_in_flight").get<double>());
  CHECK(simulated == Approx(expected).epsilon(1e-6));
  CHECK(executor0(r).at("peak_splits_in_flight") == 4);
  CHECK(executor0(r).at("peak_bytes_reserved") == 4000000);
  CHECK(executor0(r).at("window_limit") == "prefetch_bytes");
}

TEST_CASE("ready-first consumes past one slow split, in order waits for it", "[sim][remote_scan]") {
  // Split 0 holds 10 MB (1 s at 10 MB/s), 200 others 100 kB (10 ms); all load at once. The
  // consumer needs 10 ns a byte: 0.1 s for split 0, 1 ms for each small one.
  auto run = [](const char* consumption) {
    json doc = scan(1, 1, 0.001, 10, 1000, 256);
    doc["splits"] = {{"footer_bytes", 1}, {"bytes", json::array()}};
    doc["splits"]["bytes"].push_back(10000000);
    for (int i = 0; i < 200; ++i)
      doc["splits"]["bytes"].push_back(100000);
    doc["scan"]["consumer_ns_per_byte"] = 10;
    doc["scan"]["consumption"] = consumption;
    return simulate_doc(doc);
  };
  const json ready = run("ready_first"), ordered = run("in_order"), planned = run("planned_first");
  const double slow_loaded = 0.001 + 1 / 10e6 + 0.001 + 1.0;
  const double ready_expected = slow_loaded + 0.1;         // the small ones consumed meanwhile
  const double ordered_expected = slow_loaded + 0.1 + 0.2; // the small ones after the slow one
  show("ready-first: makespan_s (slow split loaded + consumed)", ready_expected,
       ready.at("summary").at("makespan_s").get<double>());
  show("in order: makespan_s (+ the 200 small splits after it)", ordered_expected,
       ordered.at("summary").at("makespan_s").get<double>());
  CHECK(ready.at("summary").at("makespan_s").get<double>() == Approx(ready_expected).epsilon(1e-6));
  CHECK(ordered.at("summary").at("makespan_s").get<double>() == Approx(ordered_expected).epsilon(1e-6));
  CHECK(executor0(ordered).at("consumer_wait_s").get<double>() == Approx(slow_loaded).epsilon(1e-6));
  // Planned-first binds the split whose footer came back first: all come back together, split 0
  // first, so it waits like in order.
  show("planned-first: makespan_s (binds split 0, as in order)", ordered_expected,
       planned.at("summary").at("makespan_s").get<double>());
  CHECK(planned.at("summary").at("makespan_s").get<double>() == Approx(ordered_expected).epsilon(1e-6));
}

TEST_CASE("four executors on one host share its NIC, on four hosts they do not", "[sim][remote_scan]") {
  json doc = scan(256, 2000000, 0.001, 100, 1, 64);
  doc["cluster"]["executors"] = 4;
  doc["cluster"]["hosts"] = 1;
  const json one = simulate_doc(doc);
  doc["cluster"]["hosts"] = 4;
  const json four = simulate_doc(doc);
  const double ratio =
      one.at("summary").at("makespan_s").get<double>() / four.at("summary").at("makespan_s").get<double>();
  show("one host / four hosts: makespan ratio (NIC-bound: about 4)", 4, ratio);
  CHECK(ratio == Approx(4).epsilon(0.01));
  CHECK(one.at("summary").at("bound") == "nic");
}
