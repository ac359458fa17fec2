// Several executor daemons on one host (cluster.daemons_per_host), on the models alone
// (model_harness.hpp): they share the host's hardware threads, their RPCs to each other take the
// loopback path, and only a channel to the same daemon skips compression.
#include "model_harness.hpp"

#include <catch2/catch.hpp>

#include <cstdio>

using namespace exsim;
using nlohmann::json;

namespace {

// One scan instance on daemon 0 sends `rows` rows of 16 fixed bytes on a hash exchange to one
// finalize-aggregate instance on daemon `to`; no CPU cost but the scan's.
json scan_to(int to, double rows, double scan_ns, const json& cluster, const json& flags) {
  json q = {{"name", "q"},
            {"fragments",
             {{{"id", "F0"},
               {"executors", 1},
               {"root", {{"op", "scan"}, {"id", "0"}, {"rows", rows}}},
               {"sink", {{"exchange", "x"}}}},
              {{"id", "F1"},
               {"executors", 1},
               {"first_executor", to},
               {"root", {{"op", "aggregate"}, {"id", "2"}, {"rows", 1}, {"input", {{"op", "exchange"}, {"id", "1"}, {"exchange", "x"}}}}},
               {"sink", {{"result", true}}}}}},
            {"exchanges", {{{"id", "x"}, {"partitioning", "HASH_PARTITIONED"}, {"fixed_row_bytes", 16}}}}};
  json f = flags;
  f["num_scanner_threads"] = 1;
  return {{"schema_version", 2},
          {"cluster", cluster},
          {"flags", f},
          {"costs", {{"scan_ns_per_row", scan_ns}}},
          {"exchange_defaults",
           {{"hash_ns_per_row", 0},
            {"copy_ns_per_row", 0},
            {"serialize_ns_per_byte", 0},
            {"compress_ns_per_byte", 0},
            {"deserialize_ns_per_byte", 0},
            {"compression_ratio", 0.5}}},
          {"queries", {q}}};
}

} // namespace

TEST_CASE("shared host: RPCs between two daemons on one host take the loopback round trip",
          "[unit][query][shared_host]") {
  // 100 batches of 1024 rows of 16 B + 4 B of offsets, uncompressed, no CPU: 100 round trips over
  // loopback (80 us, 100 Gbit/s), then the end of stream's way there. With a host each, the same
  // query takes the 390 us round trip over 12.5 Gbit/s NICs.
  const json flags = {{"compression", false}};
  struct Case {
    const char* name;
    json cluster;
    double rtt, gbps;
  } cases[] = {
      {"two daemons on one host", {{"executors", 2}, {"daemons_per_host", 2}, {"loopback_rtt_us", 80}}, 80e-6, 100},
      {"a host each", {{"executors", 2}, {"loopback_rtt_us", 80}}, 390e-6, 12.5},
  };
  for (const Case& c : cases) {
    const json doc = scan_to(1, 100 * 1024, 0, c.cluster, flags);
    const Scenario sc = build_scenario(doc, "t.json");
    auto run = test::run_models(doc, sc);
    const QueryRuntime& q = *run->workload->queries.at(0);
    const double expected = 100 * (c.rtt + 1024 * (16 + 4) * 8 / (c.gbps * 1e9)) + c.rtt / 2;
    std::printf("%-58s expected %.6f, simulated %.6f\n", c.name, expected, q.end_s);
    CHECK(q.end_s == Approx(expected).epsilon(1e-6));
  }
}

TEST_CASE("shared host: only a channel to the same daemon skips compression, unless compress_local_channels",
          "[unit][query][shared_host]") {
  // 10 batches of 1024 rows: 16 B a row of tuple data, halved when compressed, and 4 B of offsets.
  const double raw = 10 * 1024 * 16, offsets = 10 * 1024 * 4;
  const json cluster = {{"executors", 4}, {"daemons_per_host", 2}};
  struct Case {
    const char* name;
    int to;
    bool compress_local;
    double wire;
  } cases[] = {
      {"same daemon", 0, false, raw + offsets},
      {"same daemon, compress_local_channels", 0, true, raw / 2 + offsets},
      {"other daemon, same host", 1, false, raw / 2 + offsets},
      {"other host", 2, false, raw / 2 + offsets},
  };
  for (const Case& c : cases) {
    const json doc = scan_to(c.to, 10 * 1024, 0, cluster, {{"compress_local_channels", c.compress_local}});
    const Scenario sc = build_scenario(doc, "t.json");
    auto run = test::run_models(doc, sc);
    const auto& sender = run->workload->queries.at(0)->exchanges.at(0)->senders.at(0);
    std::printf("%-58s expected %.0f B, simulated %lld B\n", c.name, c.wire,
                static_cast<long long>(sender.TotalBytesSent));
    CHECK(static_cast<double>(sender.TotalBytesSent) == c.wire);
  }
}

TEST_CASE("shared host: daemons on one host share its hardware threads", "[unit][query][shared_host]") {
  // A scan of 10,000 rows at 100 us a row, one instance of 5,000 rows on each of daemons 0 and 1,
  // each sending to an aggregate on daemon 0 of no cost. On one host of one core and one hardware
  // thread the two scan threads share it: both end at 2 x 0.5 s. On a host each, at 0.5 s.
  auto query = [](const json& cluster) {
    json doc = scan_to(0, 1e4, 1e5, cluster, {{"compression", false}});
    doc["queries"][0]["fragments"][0]["executors"] = 2;
    return doc;
  };
  struct Case {
    const char* name;
    int daemons_per_host;
    double expected;
  } cases[] = {{"two daemons, one single-thread host", 2, 1.0}, {"a single-thread host each", 1, 0.5}};
  for (const Case& c : cases) {
    const json doc =
        query({{"executors", 2}, {"daemons_per_host", c.daemons_per_host}, {"cores_per_executor", 1}, {"threads_per_core", 1}});
    const Scenario sc = build_scenario(doc, "t.json");
    auto run = test::run_models(doc, sc);
    const QueryRuntime& q = *run->workload->queries.at(0);
    std::printf("%-58s expected %.6f, simulated %.6f\n", c.name, c.expected, q.end_s - q.start_s);
    // Round trips add well under 1%.
    CHECK(q.end_s - q.start_s == Approx(c.expected).epsilon(0.01));
  }
}
