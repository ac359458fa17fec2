// Whole queries on the models alone (model_harness.hpp: hand-driven clock, FIFO network).
#include "model_harness.hpp"

#include <catch2/catch.hpp>

#include "models/query/scan.hpp"

#include <cmath>
#include <cstdio>

using namespace exsim;
using nlohmann::json;

namespace {

// One scan instance on executor 0 sends `rows` rows of 16 fixed bytes on a hash exchange to one
// finalize-aggregate instance on executor 1, which returns its result.
json scan_to_aggregate(double rows, double scan_ns, double agg_ns, int k) {
  json q = {{"name", "q"},
            {"fragments",
             {{{"id", "F0"},
               {"executors", 1},
               {"root", {{"op", "scan"}, {"id", "0"}, {"rows", rows}}},
               {"sink", {{"exchange", "x"}}}},
              {{"id", "F1"},
               {"executors", 1},
               {"first_executor", 1},
               {"root", {{"op", "aggregate"}, {"id", "2"}, {"rows", 1}, {"input", {{"op", "exchange"}, {"id", "1"}, {"exchange", "x"}}}}},
               {"sink", {{"result", true}}}}}},
            {"exchanges", {{{"id", "x"}, {"partitioning", "HASH_PARTITIONED"}, {"fixed_row_bytes", 16}}}}};
  return {{"schema_version", 2},
          {"cluster", {{"executors", 2}, {"nic_bandwidth_gbps", 100}}},
          {"flags", {{"rpcs_in_flight_per_channel", k}, {"compression", false}, {"num_scanner_threads", 1}}},
          {"costs", {{"scan_ns_per_row", scan_ns}, {"aggregate_ns_per_row", agg_ns}}},
          {"exchange_defaults",
           {{"hash_ns_per_row", 0}, {"copy_ns_per_row", 0}, {"serialize_ns_per_byte", 0}, {"deserialize_ns_per_byte", 0}}},
          {"queries", {q}}};
}

} // namespace

TEST_CASE("models alone: a consumer slower than the network sets the query's time", "[unit][query]") {
  // 1M rows; the aggregate spends 2 us a row: 2 s, far above the 977 round trips of 1024 rows
  // (0.38 s). The query takes the consumer's time, K does not change it, and the receiver's 10 MiB
  // buffer fills up: RPCs are deferred.
  for (int k : {1, 4}) {
    const json doc = scan_to_aggregate(1e6, 0, 2000, k);
    const Scenario sc = build_scenario(doc, "t.json");
    auto run = test::run_models(doc, sc);
    const QueryRuntime& q = *run->workload->queries.at(0);
    const double expected = 1e6 * 2000e-9;
    std::printf("%-58s expected %.6f, simulated %.6f\n", ("consumer-bound query, K=" + std::to_string(k)).c_str(),
                expected, q.end_s - q.start_s);
    CHECK(q.end_s - q.start_s == Approx(expected).epsilon(0.01));
    CHECK(q.exchanges.at(0)->receivers.at(0).TotalRPCsDeferred > 0);
    CHECK(q.breakdown.total() == Approx(q.end_s - q.start_s).epsilon(1e-9));
    CHECK(q.breakdown.get(PathPart::cpu_aggregate) == Approx(expected).epsilon(0.01));
  }
}

TEST_CASE("models alone: round trips bind when nothing else costs: N RPCs take N x RTT", "[unit][query]") {
  // 100 batches of 1024 rows of 16 B, no CPU cost: 100 TransmitData of one RTT each, then the
  // end of stream (one RTT), the last response back before the aggregate's thread returns.
  const json doc = scan_to_aggregate(100 * 1024, 0, 0, 1);
  const Scenario sc = build_scenario(doc, "t.json");
  auto run = test::run_models(doc, sc);
  const QueryRuntime& q = *run->workload->queries.at(0);
  const double rtt = 390e-6, transfer = 1024 * (16 + 4) / 12.5e9;
  // The receiver has read everything when the EOS arrives: 100 round trips plus the EOS's way there.
  const double expected = 100 * (rtt + transfer) + rtt / 2;
  std::printf("%-58s expected %.6f, simulated %.6f\n", "round-trip-bound query, 100 RPCs", expected, q.end_s);
  CHECK(q.end_s == Approx(expected).epsilon(1e-6));
  CHECK(q.breakdown.get(PathPart::rtt) == Approx(100 * rtt + rtt / 2).epsilon(1e-6));
  CHECK(q.exchanges.at(0)->senders.at(0).TransmitDataRpcs == 100);
}

// --- runtime filters -------------------------------------------------------------------------

namespace {

json leaf(const char* id, const char* x) { return {{"op", "exchange"}, {"id", id}, {"exchange", x}}; }
json hash_exchange(const char* id) { return {{"id", id}, {"partitioning", "HASH_PARTITIONED"}, {"fixed_row_bytes", 16}}; }

// One query of these fragments sending on hash exchange "x", on 2 executors, no compression.
json query_on_x(const json& fragments, int mt_dop, const json& costs) {
  return {{"schema_version", 2},
          {"cluster", {{"executors", 2}}},
          {"flags", {{"mt_dop", mt_dop}, {"compression", false}}},
          {"costs", costs},
          {"queries", {{{"name", "q"}, {"fragments", fragments}, {"exchanges", {hash_exchange("x")}}}}}};
}

// Rows the sender instances of the query's exchange x (its index) sent.
int64_t rows_sent(const QueryRuntime& q, size_t x = 0) {
  int64_t sent = 0;
  for (const auto& s : q.exchanges.at(x)->senders)
    sent += s.RowsSent;
  return sent;
}

// Executor `producer` runs join "3": its build scans 1024 rows (one batch) at 10 us a row and
// inserts them at 300 us a row, so its build ends at 1024 x 310 us = 0.31744 s; its probe reads 10
// rows. Executor `consumer` scans `rows` rows at 10 us a row with one scanner thread, the scan
// filtered by join "3" keeping `keep`. Both send to a union on executor 2, whose buffer holds all.
json filtered_query(int producer, int consumer, double rows, double keep, json flags) {
  json q = {{"name", "q"},
            {"fragments",
             {{{"id", "FJ"},
               {"executors", 1},
               {"first_executor", producer},
               {"root",
                {{"op", "hash_join"},
                 {"id", "3"},
                 {"rows", 10},
                 {"probe", {{"op", "scan"}, {"id", "4"}, {"rows", 10}}},
                 {"build", {{"op", "scan"}, {"id", "2"}, {"rows", 1024}}}}},
               {"sink", {{"exchange", "xj"}}}},
              {{"id", "FP"},
               {"executors", 1},
               {"first_executor", consumer},
               {"root",
                {{"op", "scan"}, {"id", "0"}, {"rows", rows}, {"runtime_filters", {{{"join", "3"}, {"keep", keep}}}}}},
               {"sink", {{"exchange", "xp"}}}},
              {{"id", "FR"},
               {"executors", 1},
               {"first_executor", 2},
               {"root", {{"op", "union"}, {"id", "5"}, {"rows", rows + 10}, {"inputs", {leaf("6", "xj"), leaf("7", "xp")}}}},
               {"sink", {{"result", true}}}}}},
            {"exchanges", {hash_exchange("xj"), hash_exchange("xp")}}};
  flags["compression"] = false;
  flags["num_scanner_threads"] = 1;
  flags["exchg_node_buffer_size_bytes"] = 1 << 30;
  return {{"schema_version", 2},
          {"cluster", {{"executors", 3}}},
          {"flags", flags},
          {"costs", {{"scan_ns_per_row", 10000}, {"join_build_ns_per_row", 300000}}},
          {"exchange_defaults",
           {{"hash_ns_per_row", 0}, {"copy_ns_per_row", 0}, {"serialize_ns_per_byte", 0}, {"deserialize_ns_per_byte", 0}}},
          {"queries", {q}}};
}

constexpr double kBuildEnd = 1024 * 310e-6; // the producing join's build, from the query's start
constexpr double kBatchScan = 1024 * 10e-6; // one batch of the filtered scan

const QueryRuntime::FilterWait& only_wait(const QueryRuntime& q) {
  REQUIRE(q.filter_waits.size() == 1);
  return q.filter_waits[0];
}

} // namespace

TEST_CASE("models alone: a local filter whose build ends before its scan reads: the scan emits exactly its rows",
          "[unit][query][runtime_filter]") {
  // Join "2" builds 1000 rows in the probe scan's fragment: the probe side reads only once the
  // build has ended, by when the filter is there. The scan passes exactly its 100k rows (keep 0.25
  // already counted in them): all reach the sender, none passed for want of the filter, no wait.
  for (int mt_dop : {0, 2}) {
    json join = {{"op", "hash_join"},
                 {"id", "2"},
                 {"rows", 1e5},
                 {"probe", {{"op", "scan"}, {"id", "0"}, {"rows", 1e5}, {"runtime_filters", {{{"join", "2"}, {"keep", 0.25}}}}}}};
    json fragments = {{{"id", "F0"}, {"executors", 1}, {"root", join}, {"sink", {{"exchange", "x"}}}},
                      {{"id", "F1"},
                       {"executors", 1},
                       {"first_executor", 1},
                       {"instances_per_executor", 1},
                       {"root", {{"op", "aggregate"}, {"id", "5"}, {"rows", 1}, {"input", leaf("4", "x")}}},
                       {"sink", {{"result", true}}}}};
    if (mt_dop == 0) {
      fragments[0]["root"]["build"] = {{"op", "scan"}, {"id", "1"}, {"rows", 1000}};
    } else { // a separate join-build fragment, as Impala plans joins at mt_dop > 0
      fragments[0]["root"]["build"] = {{"fragment", "FB"}};
      fragments.push_back({{"id", "FB"}, {"root", {{"op", "scan"}, {"id", "1"}, {"rows", 1000}}}, {"sink", {{"join_build", "2"}}}});
    }
    const json doc =
        query_on_x(fragments, mt_dop, {{"scan_ns_per_row", 10}, {"join_build_ns_per_row", 1000}});
    const Scenario sc = build_scenario(doc, "t.json");
    auto run = test::run_models(doc, sc);
    const QueryRuntime& q = *run->workload->queries.at(0);
    const int64_t sent = rows_sent(q);
    std::printf("%-58s expected %.0f, simulated %lld\n", (mt_dop == 0 ? "rows the filtered scan sends, mt_dop 0" : "rows the filtered scan sends, mt_dop 2"), 1e5, static_cast<long long>(sent));
    CHECK(sent == 100000);
    CHECK(q.fragment_stats[0].rows_passed_before_filters == 0);
    CHECK(q.fragment_stats[0].runtime_filter_timeouts == 0);
    CHECK(q.breakdown.get(PathPart::runtime_filter_wait) == 0);
    for (const auto& w : q.filter_waits)
      CHECK(w.to_s == w.from_s);
    CHECK(q.filter_arrivals.size() == static_cast<size_t>(std::max(1, mt_dop)));
  }
}

TEST_CASE("models alone: a filter arriving after the wait time: the scan waits exactly that long, then passes "
          "rows / keep until it arrives", "[unit][query][runtime_filter]") {
  // Producer on executor 1, consumer on executor 0 (the coordinator): the filter reaches the
  // coordinator half a round trip plus 1 MiB at 12.5 Gbit/s after the build's end, then the
  // consumer over loopback (half its round trip plus 1 MiB at 100 Gbit/s). The scan waits 100 ms,
  // then starts a batch of 1024 rows every 10.24 ms: the batches started before the arrival pass
  // 1/keep of their rows, the others exactly theirs.
  const double keep = 0.25, rows = 100 * 1024, wait = 0.1;
  const json doc = filtered_query(1, 0, rows, keep, {{"runtime_filter_wait_time_ms", 100}});
  const Scenario sc = build_scenario(doc, "t.json");
  auto run = test::run_models(doc, sc);
  const QueryRuntime& q = *run->workload->queries.at(0);
  const double bits = 1048576.0 * 8;
  const double arrival = kBuildEnd + 390e-6 / 2 + bits / 12.5e9 + 50e-6 / 2 + bits / 100e9;
  const double unfiltered_batches = std::ceil((arrival - wait) / kBatchScan);
  const double passed_before = unfiltered_batches * 1024 * (1 / keep - 1);
  const auto& w = only_wait(q);
  std::printf("%-58s expected %.6f, simulated %.6f\n", "scan's wait for its filter (s)", wait, w.to_s - w.from_s);
  std::printf("%-58s expected %.6f, simulated %.6f\n", "filter's arrival at the scan (s)", arrival,
              q.filter_arrivals.at(0).at_s);
  std::printf("%-58s expected %.0f, simulated %lld\n", "rows passed before the filter arrived", passed_before,
              static_cast<long long>(q.fragment_stats[1].rows_passed_before_filters));
  CHECK(w.from_s == 0);
  CHECK(w.to_s == Approx(wait).epsilon(1e-12));
  REQUIRE(q.filter_arrivals.size() == 1);
  CHECK(q.filter_arrivals[0].at_s == Approx(arrival).epsilon(1e-9));
  CHECK(q.fragment_stats[1].runtime_filter_timeouts == 1);
  CHECK(static_cast<double>(q.fragment_stats[1].rows_passed_before_filters) == passed_before);
  CHECK(static_cast<double>(rows_sent(q, 1)) ==
        rows + passed_before); // what left the scan reached the exchange
  CHECK(q.breakdown.total() == Approx(q.end_s - q.start_s).epsilon(1e-9));
}

TEST_CASE("models alone: a global filter arrives one round trip after the last producer's build",
          "[unit][query][runtime_filter]") {
  // Producer on executor 1, consumer on executor 2, the coordinator on executor 0; filters of no
  // bytes: half a round trip to the coordinator, half from it. The scan waits for it (the wait
  // time is 2 s), then passes exactly its rows.
  const json doc =
      filtered_query(1, 2, 10 * 1024, 0.5, {{"runtime_filter_wait_time_ms", 2000}, {"runtime_bloom_filter_size", 0}});
  const Scenario sc = build_scenario(doc, "t.json");
  auto run = test::run_models(doc, sc);
  const QueryRuntime& q = *run->workload->queries.at(0);
  const double arrival = kBuildEnd + 390e-6;
  REQUIRE(q.filter_arrivals.size() == 1);
  std::printf("%-58s expected %.6f, simulated %.6f\n", "global filter's arrival (s)", arrival, q.filter_arrivals[0].at_s);
  CHECK(q.filter_arrivals[0].at_s == Approx(arrival).epsilon(1e-9));
  const auto& w = only_wait(q);
  CHECK(w.to_s == Approx(arrival).epsilon(1e-9));
  CHECK(q.fragment_stats[1].rows_passed_before_filters == 0);
  CHECK(q.fragment_stats[1].runtime_filter_timeouts == 0);
}

TEST_CASE("filter gate: passes 1/keep per filtered row while the factor is up, rounding on running totals",
          "[unit][runtime_filter]") {
  FilterGate g;
  g.factor = 1 / 0.3;
  int64_t out = 0;
  for (int i = 0; i < 10; ++i)
    out += g.pass(7);
  CHECK(out == std::llround(70 / 0.3));
  g.factor = 1;
  out += g.pass(5);
  CHECK(out == std::llround(70 / 0.3) + 5);
  CHECK(g.passed_before_filters() == out - 75);
}

TEST_CASE("filter gate: never passes more rows than the scan reads", "[unit][runtime_filter]") {
  // Three missing filters keeping 1% each would pass 10^6 rows per filtered row; a scan that reads
  // 50 rows per filtered row passes 50, and its late rows are the 49 others.
  FilterGate g;
  g.factor = 1 / (0.01 * 0.01 * 0.01);
  g.cap = 50;
  g.missing = {0, 1, 2};
  CHECK(g.pass(10) == 500);
  CHECK(g.take(500).late_rows() == Approx(490));
  g.factor = 1;
  CHECK(g.pass(10) == 10);
  CHECK(g.take(10).clean());
}

TEST_CASE("models alone: RUNTIME_FILTER_MODE LOCAL and OFF: a filter not assigned is neither awaited nor applied",
          "[unit][query][runtime_filter]") {
  // The global filter of the case above: under LOCAL or OFF the scan reads at once and passes
  // 1/keep times its rows all along; under GLOBAL it waits for the filter (before 2 s).
  const double keep = 0.5, rows = 10 * 1024;
  for (const char* mode : {"LOCAL", "OFF", "GLOBAL"}) {
    const json doc = filtered_query(1, 2, rows, keep, {{"runtime_filter_wait_time_ms", 2000}, {"runtime_filter_mode", mode}});
    const Scenario sc = build_scenario(doc, "t.json");
    auto run = test::run_models(doc, sc);
    const QueryRuntime& q = *run->workload->queries.at(0);
    const bool global = std::string(mode) == "GLOBAL";
    const auto& w = only_wait(q);
    CHECK((w.to_s > w.from_s) == global);
    CHECK(q.filter_arrivals.size() == (global ? 1u : 0u));
    CHECK(static_cast<double>(q.fragment_stats[1].rows_passed_before_filters) == (global ? 0 : rows * (1 / keep - 1)));
    CHECK(q.fragment_stats[1].runtime_filter_timeouts == 0);
  }
}

TEST_CASE("models alone: rows a scan passed for want of a filter cross an exchange and are dropped at the join "
          "that built the filter", "[unit][query][runtime_filter]") {
  // The scan on executor 0 reads 10 x 1024 rows (keep 0.25 counted in them) and sends them on a hash
  // exchange to join "3" on executors 1 and 2 (two receivers, rows split at random), whose builds
  // (512 rows each at 340 us: 0.174 s) make the filter; the join emits 2048 rows per the 10240 that
  // pass the filter, and sends them on to an aggregate on executor 3. Whether the scan passes 4x its
  // rows (OFF: never applied), some of them (a 1 ms wait: the filter arrives mid-scan, the scan
  // taking 40 us a row, 0.41 s) or exactly them (2 s wait), what crosses the first exchange differs and the
  // join's output does not (the two instances round their own shares: +-1).
  const double keep = 0.25, rows = 10 * 1024, out = 2048;
  for (const json& flags : {json{{"runtime_filter_mode", "OFF"}}, json{{"runtime_filter_wait_time_ms", 1}},
                            json{{"runtime_filter_wait_time_ms", 2000}}}) {
    json q = {{"name", "q"},
              {"fragments",
               {{{"id", "FP"},
                 {"executors", 1},
                 {"root", {{"op", "scan"}, {"id", "0"}, {"rows", rows}, {"runtime_filters", {{{"join", "3"}, {"keep", keep}}}}}},
                 {"sink", {{"exchange", "xp"}}}},
                {{"id", "FJ"},
                 {"executors", 2},
                 {"first_executor", 1},
                 {"root",
                  {{"op", "hash_join"},
                   {"id", "3"},
                   {"rows", out},
                   {"probe", leaf("1", "xp")},
                   {"build", {{"op", "scan"}, {"id", "2"}, {"rows", 1024}}}}},
                 {"sink", {{"exchange", "xj"}}}},
                {{"id", "FR"},
                 {"executors", 1},
                 {"first_executor", 3},
                 {"root", {{"op", "aggregate"}, {"id", "5"}, {"rows", 1}, {"input", leaf("4", "xj")}}},
                 {"sink", {{"result", true}}}}}},
              {"exchanges", {hash_exchange("xp"), hash_exchange("xj")}}};
    json f = flags;
    f["compression"] = false;
    f["num_scanner_threads"] = 1;
    f["runtime_bloom_filter_size"] = 0;
    const json doc = {{"schema_version", 2},
                      {"cluster", {{"executors", 4}}},
                      {"flags", f},
                      {"costs", {{"scan_ns_per_row", 40000}, {"join_build_ns_per_row", 300000}}},
                      {"queries", {q}}};
    const Scenario sc = build_scenario(doc, "t.json");
    auto run = test::run_models(doc, sc);
    const QueryRuntime& qr = *run->workload->queries.at(0);
    const double late = static_cast<double>(qr.fragment_stats[0].rows_passed_before_filters);
    std::printf("%-58s expected %.0f, simulated %lld (%s, %.0f late rows)\n", "rows the filter's join emits", out,
                static_cast<long long>(rows_sent(qr, 1)), f.dump().c_str(), late);
    CHECK(static_cast<double>(rows_sent(qr, 0)) == rows + late);
    CHECK(std::abs(static_cast<double>(rows_sent(qr, 1)) - out) <= 1);
    if (flags.contains("runtime_filter_mode")) {
      CHECK(late == rows * (1 / keep - 1));
    } else if (flags["runtime_filter_wait_time_ms"] == 1) {
      CHECK(late > 0);
      CHECK(late < rows * (1 / keep - 1));
    } else {
      CHECK(late == 0);
    }
  }
}

TEST_CASE("models alone: a partitioned join's global filter waits for the last executor's builds",
          "[unit][query][runtime_filter]") {
  // Join "3" runs on executors 1 and 2; its build scan has 4096 rows split 1:3, one batch each
  // (batch_size 4096), so the builds end at 1024 x 310 us and 3072 x 310 us. The coordinator
  // (executor 0) publishes once both executors have reported (half a round trip each), and the
  // filter reaches the scan on executor 3 half a round trip later: 3072 x 310 us + 390 us.
  json doc = filtered_query(1, 3, 10 * 1024, 0.5,
                            {{"runtime_filter_wait_time_ms", 5000}, {"runtime_bloom_filter_size", 0}, {"batch_size", 4096}});
  doc["cluster"]["executors"] = 4;
  json& fj = doc["queries"][0]["fragments"][0];
  fj["executors"] = 2;
  fj["root"]["build"]["rows"] = 4096;
  fj["root"]["build"]["instance_weights"] = {1, 3};
  const Scenario sc = build_scenario(doc, "t.json");
  auto run = test::run_models(doc, sc);
  const QueryRuntime& q = *run->workload->queries.at(0);
  const double arrival = 3072 * 310e-6 + 390e-6;
  REQUIRE(q.filter_arrivals.size() == 1);
  std::printf("%-58s expected %.6f, simulated %.6f\n", "partitioned join's filter, after its last build (s)", arrival,
              q.filter_arrivals[0].at_s);
  CHECK(q.filter_arrivals[0].at_s == Approx(arrival).epsilon(1e-9));
}

TEST_CASE("models alone: a partitioned top-n outputs its share of its rows on each instance it runs",
          "[unit][query]") {
  // A top-n over 1000 scanned rows, estimated to keep 29 (a partition limit), runs in a scan
  // fragment on 2 executors: 1 instance each at mt_dop 0, 4 at mt_dop 4. Each instance keeps
  // ceil(29 / instances): the exchange carries 2 x 15 = 30 rows at mt_dop 0, 8 x 4 = 32 at mt_dop 4.
  for (const auto& [mt_dop, expected] : {std::pair{0, 30}, std::pair{4, 32}}) {
    const json top = {{"op", "top_n"},
                      {"id", "1"},
                      {"rows", 29},
                      {"partitioned", true},
                      {"input", {{"op", "scan"}, {"id", "0"}, {"rows", 1000}}}};
    const json fragments = {
        {{"id", "F0"}, {"executors", 2}, {"root", top}, {"sink", {{"exchange", "x"}}}},
        {{"id", "F1"},
         {"executors", 1},
         {"first_executor", 1},
         {"instances_per_executor", 1},
         {"root", {{"op", "aggregate"}, {"id", "3"}, {"rows", 1}, {"input", leaf("2", "x")}}},
         {"sink", {{"result", true}}}}};
    const json doc = query_on_x(fragments, mt_dop, json::object());
    const Scenario sc = build_scenario(doc, "t.json");
    auto run = test::run_models(doc, sc);
    const QueryRuntime& q = *run->workload->queries.at(0);
    const int64_t sent = rows_sent(q);
    std::printf("%-58s expected %d, simulated %lld\n",
                ("rows a partitioned top-n sends, mt_dop " + std::to_string(mt_dop)).c_str(), expected,
                static_cast<long long>(sent));
    CHECK(q.exchanges.at(0)->senders.size() == static_cast<size_t>(mt_dop == 0 ? 2 : 8));
    CHECK(sent == expected);
  }
}
