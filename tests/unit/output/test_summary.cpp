// Summaries read only the results JSON: checked here on hand-made results documents whose figures
// are chosen so that every rolled-up number can be worked out by hand.
#include "output/summary.hpp"

#include <catch2/catch.hpp>
#include <fmt/format.h>

#include <sstream>

using namespace exsim;
using nlohmann::json;

namespace {

json exchange(const std::string& id, const std::string& query, double blocked, int64_t memory,
              const std::string& bound = "rpc_window", const std::string& status = "ok") {
  return {{"id", id},
          {"query", query},
          {"partitioning", "HASH_PARTITIONED"},
          {"merging", false},
          {"k", 1},
          {"k_configured", 1},
          {"k_reason", ""},
          {"status", status},
          {"error", status == "ok" ? "" : "injected RPC error"},
          {"duration_s", 1.0},
          {"rpcs", status == "ok" ? 100 : 0},
          {"mean_rpc_bytes", 16000.0},
          {"slowest_sender_blocked_s", blocked},
          {"rpcs_deferred", 0},
          {"memory_estimate_bytes", memory},
          {"bound", bound},
          {"sender_instances", json::array({{{"InactiveTotalTime_s", blocked}, {"RpcSuccess", 60}},
                                            {{"InactiveTotalTime_s", blocked / 2}, {"RpcSuccess", 40}}})},
          {"receiver_instances", json::array()}};
}

json results(json exchanges, json queries, const std::string& order = "sequential") {
  json summary = {{"exchanges", exchanges.size()},
                  {"queries", queries.size()},
                  {"runtime_s_total", 0.0},
                  {"makespan_s", 1.0},
                  {"rpcs", 0},
                  {"mean_rpc_bytes", 0.0},
                  {"slowest_sender_blocked_s_total", 0.0},
                  {"memory_estimate_bytes_total", 0},
                  {"hash_rpcs", 0},
                  {"hash_mean_rpc_bytes", 0.0},
                  {"nonpushback_hash_exchanges", 0},
                  {"nonpushback_slowest_sender_blocked_s_total", 0.0}};
  int64_t memory = 0;
  for (const json& x : exchanges)
    memory += x["memory_estimate_bytes"].get<int64_t>();
  summary["memory_estimate_bytes_total"] = memory;
  return {{"scenario", {{"name", "hand"}}},
          {"settings", {{"query_order", order}, {"cluster", {{"rtt_us", 390}}}}},
          {"exchanges", exchanges},
          {"queries", queries},
          {"summary", summary}};
}

json query(const std::string& name, double runtime, const std::string& status = "ok") {
  return {{"query", name}, {"runtime_s", runtime}, {"exchange_span_s", runtime}, {"status", status}};
}

// A workload too large for one row per exchange: 30 queries of one 1 MiB exchange each, except
// q7 (three exchanges of 5 MiB: the peak query, 15 MiB) and q3 (blocked longest).
json workload() {
  json xs = json::array(), qs = json::array();
  for (int q = 0; q < 30; ++q) {
    const std::string name = fmt::format("q{}", q);
    qs.push_back(query(name, 10.0 + q)); // q29 is the slowest
    if (q == 7) {
      for (int i = 0; i < 3; ++i)
        xs.push_back(exchange(fmt::format("q7_x{}", i), name, 0.5, 5 << 20));
    } else {
      xs.push_back(exchange(name + "_x", name, q == 3 ? 9.0 : 0.1, 1 << 20));
    }
  }
  return results(xs, qs);
}

} // namespace

TEST_CASE("a workload is summarised by query: top N, peak-query memory", "[unit][summary]") {
  const std::string out = format_summary(workload(), {SummaryFormat::text, 3});
  INFO(out);
  // Peak query: q7 with 3 x 5 MiB; all exchanges together 29 x 1 + 15 = 44 MiB.
  CHECK(out.find("peak query q7 with 15.00 MiB") != std::string::npos);
  CHECK(out.find("all exchanges together: 44.00 MiB") != std::string::npos);
  // No row per exchange past 20 exchanges.
  CHECK(out.find("q5_x") == std::string::npos);
  // Top 3 by runtime: q29, q28, q27 in that order; by blocked time q3 first (its main exchange's bound).
  const size_t by_runtime = out.find("top 3 queries by runtime");
  const size_t by_blocked = out.find("top 3 queries by blocked time");
  REQUIRE(by_runtime != std::string::npos);
  REQUIRE(by_blocked != std::string::npos);
  const std::string runtime_part = out.substr(by_runtime, by_blocked - by_runtime);
  CHECK(runtime_part.find("q29 ") < runtime_part.find("q28 "));
  CHECK(runtime_part.find("q28 ") < runtime_part.find("q27 "));
  CHECK(runtime_part.find("q3 ") == std::string::npos);
  const std::string blocked_part = out.substr(by_blocked);
  CHECK(blocked_part.find("q3 ") < blocked_part.find("q7 "));
  CHECK(blocked_part.find("9.000") != std::string::npos);
  CHECK(blocked_part.find("q7_x0") != std::string::npos); // q7's main exchange (ties: the first)
}

TEST_CASE("concurrent queries: the memory figure is the sum over all exchanges", "[unit][summary]") {
  json r = workload();
  r["settings"]["query_order"] = "concurrent";
  const std::string out = format_summary(r);
  INFO(out);
  CHECK(out.find("memory estimate: 44.00 MiB over all exchanges") != std::string::npos);
  CHECK(out.find("largest query q7 with 15.00 MiB") != std::string::npos);
}

TEST_CASE("failures come with their reason, and kept K with why", "[unit][summary]") {
  json xs =
      json::array({exchange("a", "q1", 0.1, 1 << 20), exchange("b", "q1", 0, 1 << 20, "none", "failed")});
  xs[0]["partitioning"] = "UNPARTITIONED";
  xs[0]["k_configured"] = 8;
  xs[0]["k_reason"] = "UNPARTITIONED senders keep K=1: because";
  const std::string out = format_summary(results(xs, json::array({query("q1", 1.0, "failed")})));
  INFO(out);
  CHECK(out.find("b (query q1): failed: injected RPC error") != std::string::npos);
  CHECK(out.find("1 exchange(s) did not get the configured rpcs_in_flight_per_channel") != std::string::npos);
  CHECK(out.find("a: K=1 instead of the configured 8: UNPARTITIONED senders keep K=1: because") !=
        std::string::npos);
}

TEST_CASE("measured vs simulated where the results carry expected counters", "[unit][summary]") {
  json xs = json::array({exchange("a", "q1", 2.0, 1 << 20)});
  // RpcSuccess: summed over the sender instances (60 + 40); InactiveTotalTime_s: the slowest one (2.0);
  // rpcs: the exchange's own figure (100); a counter the results lack is shown as not simulated.
  xs[0]["expected"] = {{"RpcSuccess", 80}, {"InactiveTotalTime_s", 4.0}, {"rpcs", 100}, {"NoSuchCounter", 1}};
  json qs = json::array({query("q1", 3.0)});
  qs[0]["expected"] = {{"runtime_s", 2.0},
                       {"slowest_sender_blocked_s", 1.0}}; // the query's own; its exchanges' sum
  const std::string out = format_summary(results(xs, qs), {SummaryFormat::csv, 10}) +
                          format_summary(results(xs, qs), {SummaryFormat::markdown, 10});
  INFO(out);
  CHECK(out.find("| a | RpcSuccess | 80 | 100 | 1.250 |") != std::string::npos);
  CHECK(out.find("| a | InactiveTotalTime_s | 4 | 2 | 0.500 |") != std::string::npos);
  CHECK(out.find("| a | rpcs | 100 | 100 | 1.000 |") != std::string::npos);
  CHECK(out.find("| a | NoSuchCounter | 1 | - | not simulated |") != std::string::npos);
  CHECK(out.find("| query q1 | runtime_s | 2 | 3 | 1.500 |") != std::string::npos);
  CHECK(out.find("| query q1 | slowest_sender_blocked_s | 1 | 2 | 2.000 |") != std::string::npos);
}

TEST_CASE("csv: one row per query, or per exchange without queries", "[unit][summary]") {
  const std::string by_query = format_summary(workload(), {SummaryFormat::csv, 3});
  CHECK(std::count(by_query.begin(), by_query.end(), '\n') == 1 + 30); // every query, not the top 3
  CHECK(by_query.rfind("query,runtime_s,", 0) == 0);
  json xs = json::array({exchange("a", "", 0.1, 1), exchange("b", "", 0.1, 1)});
  xs[1]["error"] = "a, \"quoted\" reason";
  const std::string by_exchange = format_summary(results(xs, json::array()), {SummaryFormat::csv, 3});
  INFO(by_exchange);
  CHECK(std::count(by_exchange.begin(), by_exchange.end(), '\n') == 3);
  CHECK(by_exchange.rfind("exchange,query,", 0) == 0);
  CHECK(by_exchange.find("\"a, \"\"quoted\"\" reason\"") != std::string::npos);
  SummaryFormat f;
  CHECK(parse_summary_format("md", f));
  CHECK(f == SummaryFormat::markdown);
  CHECK_FALSE(parse_summary_format("html", f));
}

TEST_CASE("a single exchange gets a one-line lesson from its bound", "[unit][summary]") {
  auto lesson_of = [](json x) {
    const std::string out = format_summary(results(json::array({x}), json::array()));
    const size_t at = out.find("Lesson: ");
    REQUIRE(at != std::string::npos);
    const std::string line = out.substr(at);
    CHECK(line.find('\n') == line.size() - 1); // one line, the last
    return line;
  };
  const std::string window = lesson_of(exchange("a", "", 0.8, 1));
  CHECK(window.find("round trips bound this exchange") != std::string::npos);
  CHECK(window.find("waited 0.800 s of 1.000 s") != std::string::npos);
  CHECK(window.find("a larger K") != std::string::npos);
  // It chooses: the flag first, as the report does, then K.
  CHECK(window.find("Try a larger data_stream_sender_buffer_size first") != std::string::npos);
  CHECK(window.find("rpcs_in_flight_policy=gradient or bdp") != std::string::npos);
  CHECK(window.find("then a larger K") > window.find("buffer_size first"));
  json merging = exchange("m", "", 0.8, 1);
  merging["merging"] = true;
  CHECK(lesson_of(merging).find("K stays 1 here") != std::string::npos);
  CHECK(lesson_of(exchange("c", "", 0.0, 1, "sender_cpu")).find("would add memory but not speed") !=
        std::string::npos);
  CHECK(lesson_of(exchange("n", "", 0.0, 1, "none", "cancelled")).find("cancelled before sending any data") !=
        std::string::npos);
  // More than one exchange: no lesson (each would need its own).
  const std::string two = format_summary(
      results(json::array({exchange("a", "", 0.8, 1), exchange("b", "", 0.8, 1)}), json::array()));
  CHECK(two.find("Lesson") == std::string::npos);
}
