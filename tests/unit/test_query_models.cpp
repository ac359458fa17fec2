// Whole queries on the models alone (model_harness.hpp: hand-driven clock, FIFO network).
#include "model_harness.hpp"

#include <catch2/catch.hpp>

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
