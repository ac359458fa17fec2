// Whole queries in the simulation: fragments' operators on the hosts' cores, with the exchanges
// inside them. Each case states its analytic expectation.
#include "sim_support.hpp"

#include <fmt/format.h>

#include <cmath>

using namespace exsim::test;

namespace {

json exchange_leaf(const char* id, const char* x) { return {{"op", "exchange"}, {"id", id}, {"exchange", x}}; }
json scan(const char* id, double rows) { return {{"op", "scan"}, {"id", id}, {"rows", rows}}; }

// Zero exchange CPU: only the operators, the round trips and the bandwidth cost time.
json v2(json cluster, json flags, json costs, json query) {
  return {{"schema_version", 2},
          {"cluster", cluster},
          {"flags", flags},
          {"costs", costs},
          {"exchange_defaults",
           {{"hash_ns_per_row", 0}, {"copy_ns_per_row", 0}, {"serialize_ns_per_byte", 0}, {"deserialize_ns_per_byte", 0}}},
          {"queries", {query}}};
}

// F0: one scan instance on executor 0 -> hash exchange x -> F1: one aggregate on executor 1.
json scan_aggregate(double rows) {
  return {{"name", "q"},
          {"fragments",
           {{{"id", "F0"}, {"executors", 1}, {"root", scan("0", rows)}, {"sink", {{"exchange", "x"}}}},
            {{"id", "F1"},
             {"executors", 1},
             {"first_executor", 1},
             {"root", {{"op", "aggregate"}, {"id", "2"}, {"rows", 1}, {"input", exchange_leaf("1", "x")}}},
             {"sink", {{"result", true}}}}}},
          {"exchanges", {{{"id", "x"}, {"partitioning", "HASH_PARTITIONED"}, {"fixed_row_bytes", 16}}}}};
}

double runtime(const json& r) { return r["queries"][0]["runtime_s"].get<double>(); }

} // namespace

TEST_CASE("query: a consumer slower than the network sets the runtime, and K does not change it", "[sim][query]") {
  const json cluster = {{"executors", 2}};
  const json costs = {{"aggregate_ns_per_row", 2000}};
  double t[2];
  int i = 0;
  for (int k : {1, 4}) {
    const json r = simulate_doc(v2(cluster, {{"rpcs_in_flight_per_channel", k}, {"compression", false}}, costs,
                                   scan_aggregate(1e6)));
    t[i++] = runtime(r);
    show(fmt::format("consumer-bound query, K={}: runtime_s", k), 2.0, runtime(r));
    CHECK(runtime(r) == Approx(2.0).epsilon(0.01));
    CHECK(r["exchanges"][0]["pushed_back"] == true);
    CHECK(r["exchanges"][0]["rpcs_deferred"].get<int64_t>() > 0);
    CHECK(r["queries"][0]["breakdown"]["cpu_aggregate_s"].get<double>() == Approx(2.0).epsilon(0.01));
  }
  CHECK(t[0] == Approx(t[1]).epsilon(1e-3));
}

TEST_CASE("query: a slow producer sets the runtime, round trips only a fast one", "[sim][query]") {
  // One scanner thread at 4 us a row: 1M rows take 4 s, far above the network's 0.38 s.
  const json flags = {{"compression", false}, {"num_scanner_threads", 1}};
  const json slow = simulate_doc(v2({{"executors", 2}}, flags, {{"scan_ns_per_row", 4000}}, scan_aggregate(1e6)));
  show("producer-bound query: runtime_s", 4.0, runtime(slow));
  CHECK(runtime(slow) == Approx(4.0).epsilon(0.01));
  CHECK(slow["queries"][0]["breakdown"]["cpu_scan_s"].get<double>() == Approx(4.0).epsilon(0.01));
  CHECK(slow["exchanges"][0]["pushed_back"] == false);
  // No CPU at all: N = 977 batches of 1024 rows (the last one partial), each a round trip.
  const json fast = simulate_doc(v2({{"executors", 2}}, flags, json::object(), scan_aggregate(1e6)));
  const double n = std::ceil(1e6 / 1024);
  const double per_rpc = 390e-6 + 1024 * 20 / (12.5e9 / 8);
  show("round-trip-bound query: runtime_s", n * per_rpc, runtime(fast));
  CHECK(runtime(fast) == Approx(n * per_rpc).epsilon(0.01));
  CHECK(fast["exchanges"][0]["bound"] == "rpc_window");
}

TEST_CASE("query: a probe waits for its join's build, and its senders block meanwhile", "[sim][query]") {
  // Executor 2 scans the build side (100k rows) into a join on executor 1 that spends 20 us per
  // build row: the build takes 2 s. Executor 0 scans the probe side (1M rows, 16 B) into the same
  // join. The join reads its first probe row when the build is done (2 s); until then the probe's
  // receiver buffer (1 MiB here) fills and its sender, which has no work of its own, is blocked
  // all along; the critical path runs through the build (2 s of hash-table inserts: the probe that
  // waited takes the build's path, which arrived last), then probes at 0.5 us a row (0.5 s).
  json q = {{"name", "q"},
            {"fragments",
             {{{"id", "P"}, {"executors", 1}, {"root", scan("0", 1e6)}, {"sink", {{"exchange", "xp"}}}},
              {{"id", "B"}, {"executors", 1}, {"first_executor", 2}, {"root", scan("1", 1e5)}, {"sink", {{"exchange", "xb"}}}},
              {{"id", "J"},
               {"executors", 1},
               {"first_executor", 1},
               {"root",
                {{"op", "hash_join"},
                 {"id", "4"},
                 {"rows", 1e6},
                 {"probe", exchange_leaf("2", "xp")},
                 {"build", exchange_leaf("3", "xb")}}},
               {"sink", {{"result", true}}}}}},
            {"exchanges",
             {{{"id", "xp"}, {"partitioning", "HASH_PARTITIONED"}, {"fixed_row_bytes", 16}},
              {{"id", "xb"}, {"partitioning", "HASH_PARTITIONED"}, {"fixed_row_bytes", 16}}}}};
  const json r = simulate_doc(v2({{"executors", 3}},
                                 {{"compression", false}, {"exchg_node_buffer_size_bytes", 1 << 20}},
                                 {{"join_build_ns_per_row", 20000}, {"join_probe_ns_per_row", 500}}, q));
  const json& b = r["queries"][0]["breakdown"];
  const double probe_blocked = r["exchanges"][0]["slowest_sender_blocked_s"].get<double>();
  const double first_probe = r["exchanges"][0]["receiver_instances"][0]["FirstBatchWaitTime_s"].get<double>();
  show("join reads its first probe batch when the build is done (s)", 2.0, first_probe);
  show("probe side's sender blocked, at least the build's time (s)", 2.0, probe_blocked);
  show("critical path through the join build's inserts (s)", 2.0, b["cpu_join_build_s"].get<double>());
  show("critical path waiting for the join build beyond its own path (s)", 0.0, b["join_build_wait_s"].get<double>());
  show("query runtime_s: build, then probe", 2.5, runtime(r));
  CHECK(first_probe == Approx(2.0).epsilon(0.01));
  CHECK(probe_blocked >= 2.0 * 0.99);
  CHECK(b["cpu_join_build_s"].get<double>() == Approx(2.0).epsilon(0.02));
  CHECK(b["join_build_wait_s"].get<double>() < 0.02);
  CHECK(b["cpu_join_probe_s"].get<double>() == Approx(0.5).epsilon(0.02));
  CHECK(runtime(r) == Approx(2.5).epsilon(0.02));
  CHECK(r["exchanges"][0]["pushed_back"] == true);
}

TEST_CASE("query: 16 busy threads on 8 cores x 2 threads share 8 x (1 + gain) cores' worth", "[sim][query]") {
  // One executor, mt_dop 16: 16 scan instances, each decoding 100k rows at 10 us (1 s of work),
  // with a 0.26 gain for a core's second thread: all 16 take 16 / (8 x 1.26) s.
  json q = {{"name", "q"},
            {"fragments", {{{"id", "F0"}, {"root", scan("0", 1.6e6)}, {"sink", {{"result", true}}}}}}};
  const json r = simulate_doc(v2({{"executors", 1}, {"cores_per_executor", 8}, {"threads_per_core", 2},
                                  {"second_thread_gain", 0.26}},
                                 {{"mt_dop", 16}}, {{"scan_ns_per_row", 10000}}, q));
  const double expected = 16.0 / (8 * 1.26);
  show("16 threads on 8x2 cores: runtime_s", expected, runtime(r));
  CHECK(r["queries"][0]["fragments"][0]["instances"] == 16);
  CHECK(runtime(r) == Approx(expected).epsilon(1e-6));
}

TEST_CASE("query: the breakdown sums to the runtime", "[sim][query]") {
  const json r = simulate_doc(v2({{"executors", 2}}, {{"num_scanner_threads", 2}},
                                 {{"scan_ns_per_row", 300}, {"aggregate_ns_per_row", 100}, {"query_startup_s", 0.1},
                                  {"codegen_s_per_fragment", 0.05}},
                                 scan_aggregate(5e5)));
  double sum = 0;
  for (const auto& [k, v] : r["queries"][0]["breakdown"].items())
    sum += v.get<double>();
  show("sum of the breakdown (s)", runtime(r), sum);
  CHECK(sum == Approx(runtime(r)).epsilon(1e-9));
  CHECK(r["queries"][0]["breakdown"]["startup_s"].get<double>() == Approx(0.15).epsilon(1e-9));
}

TEST_CASE("query: code generation runs once per fragment per executor, whatever its instances", "[sim][query]") {
  // Impala generates a fragment's code once per executor at mt_dop > 0 (its instances share the
  // compiled module): at mt_dop=4 each executor runs F0's code generation once (0.05 s on its one
  // core), then its 4 instances start. The start-up on the critical path is query_startup_s + one
  // code generation, 0.15 s; per instance it would be 0.1 + 4 x 0.05 s on that one core.
  const json costs = {{"scan_ns_per_row", 300}, {"aggregate_ns_per_row", 100}, {"query_startup_s", 0.1},
                      {"codegen_s_per_fragment", 0.05}};
  for (int mt_dop : {0, 4}) {
    const json r = simulate_doc(v2({{"executors", 2}, {"cores_per_executor", 1}, {"threads_per_core", 1}},
                                   {{"mt_dop", mt_dop}}, costs, scan_aggregate(5e5)));
    const json& q = r["queries"][0];
    CHECK(q["fragments"][0]["instances"] == (mt_dop == 0 ? 1 : mt_dop));
    show(fmt::format("mt_dop={}: startup_s", mt_dop), 0.15, q["breakdown"]["startup_s"].get<double>());
    CHECK(q["breakdown"]["startup_s"].get<double>() == Approx(0.15).epsilon(1e-9));
  }
}

TEST_CASE("query: a scan waiting for a global runtime filter puts the wait on the critical path", "[sim][query]") {
  // Join "3" on executor 1 builds 1024 rows (one batch) at 10 us + 300 us a row: its build ends at
  // 0.31744 s. Its filter (no bytes) reaches the coordinator (executor 0) and from it executor 2
  // one round trip later, where a scan of 10240 rows waits for it (up to 2 s), then reads at 10 us
  // a row (0.1024 s) into the root's union on executor 0. The query's critical path goes through
  // that scan: its wait is 0.31744 + 390 us, and it passes exactly its rows.
  auto leaf = [](const char* id, const char* x) { return json{{"op", "exchange"}, {"id", id}, {"exchange", x}}; };
  auto hash = [](const char* id) { return json{{"id", id}, {"partitioning", "HASH_PARTITIONED"}, {"fixed_row_bytes", 16}}; };
  json q = {{"name", "q"},
            {"fragments",
             {{{"id", "FJ"},
               {"executors", 1},
               {"first_executor", 1},
               {"root",
                {{"op", "hash_join"},
                 {"id", "3"},
                 {"rows", 10},
                 {"probe", scan("4", 10)},
                 {"build", scan("2", 1024)}}},
               {"sink", {{"exchange", "xj"}}}},
              {{"id", "FP"},
               {"executors", 1},
               {"first_executor", 2},
               {"root", {{"op", "scan"}, {"id", "0"}, {"rows", 10240}, {"runtime_filters", {{{"join", "3"}, {"keep", 0.5}}}}}},
               {"sink", {{"exchange", "xp"}}}},
              {{"id", "FR"},
               {"executors", 1},
               {"root", {{"op", "union"}, {"id", "5"}, {"rows", 10250}, {"inputs", {leaf("6", "xj"), leaf("7", "xp")}}}},
               {"sink", {{"result", true}}}}}},
            {"exchanges", {hash("xj"), hash("xp")}}};
  const json r = simulate_doc(v2({{"executors", 3}},
                                 {{"compression", false},
                                  {"num_scanner_threads", 1},
                                  {"runtime_filter_wait_time_ms", 2000},
                                  {"runtime_bloom_filter_size", 0}},
                                 {{"scan_ns_per_row", 10000}, {"join_build_ns_per_row", 300000}}, q));
  const json& qr = r["queries"][0];
  const double wait = 1024 * 310e-6 + 390e-6;
  show("critical path waiting for the runtime filter (s)", wait, qr["breakdown"]["runtime_filter_wait_s"].get<double>());
  show("query runtime_s: the wait, then the scan", wait + 0.1024, runtime(r));
  CHECK(qr["breakdown"]["runtime_filter_wait_s"].get<double>() == Approx(wait).epsilon(1e-6));
  CHECK(runtime(r) == Approx(wait + 0.1024).epsilon(0.02));
  CHECK(qr["rows_passed_before_filters"] == 0);
  CHECK(qr["runtime_filter_timeouts"] == 0);
  CHECK(qr["fragments"][1]["rows_passed_before_filters"] == 0);
  CHECK_FALSE(qr["fragments"][0].contains("rows_passed_before_filters"));
  // A query without filters keeps the breakdown it always had.
  const json plain = simulate_doc(v2({{"executors", 2}}, {{"compression", false}}, json::object(), scan_aggregate(1e4)));
  CHECK_FALSE(plain["queries"][0]["breakdown"].contains("runtime_filter_wait_s"));
  CHECK_FALSE(plain["queries"][0].contains("rows_passed_before_filters"));
}
