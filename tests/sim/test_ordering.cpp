// Several exchanges: concurrent by default, ordered with `after`, sharing hosts and NICs.
#include "sim_support.hpp"

using namespace exsim::test;

TEST_CASE("`after` starts an exchange when its dependency ends", "[sim][ordering]") {
  json a = free_cpu_exchange({{"id", "a"}, {"partitioning", "RANDOM"}, {"rows_total", 100 * 1024}});
  json b = free_cpu_exchange(
      {{"id", "b"}, {"partitioning", "RANDOM"}, {"rows_total", 100 * 1024}, {"after", {"a"}}});
  json c = free_cpu_exchange(
      {{"id", "c"}, {"partitioning", "RANDOM"}, {"rows_total", 100 * 1024}, {"start_s", 0.5}});
  const json r = simulate_doc(scenario({{"executors", 5}}, json::object(), json::array({a, b, c})));
  const auto& x = r["exchanges"];
  show("b starts when a ends", x[0]["end_s"].get<double>(), x[1]["start_s"].get<double>());
  CHECK(x[1]["start_s"].get<double>() == x[0]["end_s"].get<double>());
  CHECK(x[2]["start_s"].get<double>() == 0.5);
  CHECK(r["summary"]["makespan_s"].get<double>() ==
        std::max(x[1]["end_s"].get<double>(), x[2]["end_s"].get<double>()));
}

TEST_CASE("concurrent exchanges share the NIC", "[sim][ordering]") {
  // Two bandwidth-bound exchanges from executor 0 to executor 1 at the same time take about twice
  // as long as one alone.
  auto ex = [](const char* id) {
    return free_cpu_exchange({{"id", id},
                              {"partitioning", "RANDOM"},
                              {"sender_executors", 1},
                              {"receiver_executors", 1},
                              {"receiver_first_executor", 1},
                              {"rows_total", 200 * 1024},
                              {"fixed_row_bytes", 1000},
                              {"flags", {{"rpcs_in_flight_per_channel", 16}}}});
  };
  const json cluster = {{"executors", 2}, {"nic_bandwidth_gbps", 1}};
  const json flags = {{"compression", false}};
  const json one = simulate_doc(scenario(cluster, flags, json::array({ex("a")})));
  const json two = simulate_doc(scenario(cluster, flags, json::array({ex("a"), ex("b")})));
  const double t1 = one["summary"]["makespan_s"].get<double>();
  const double t2 = two["summary"]["makespan_s"].get<double>();
  show("two exchanges on one NIC: makespan / alone", 2.0, t2 / t1);
  CHECK(t2 / t1 == Approx(2.0).epsilon(0.03));
}

TEST_CASE("queries: runtime is the span of their exchanges, summed over queries", "[sim][ordering]") {
  // q1: a then b (after a); q2: c alone, concurrently. runtime_s_total = (b.end - a.start) + c.duration.
  json a = free_cpu_exchange(
      {{"id", "a"}, {"query", "q1"}, {"partitioning", "HASH_PARTITIONED"}, {"rows_total", 50000}});
  json b = free_cpu_exchange({{"id", "b"},
                              {"query", "q1"},
                              {"partitioning", "RANDOM"},
                              {"rows_total", 50 * 1024},
                              {"after", {"a"}}});
  json c = free_cpu_exchange(
      {{"id", "c"}, {"query", "q2"}, {"partitioning", "UNPARTITIONED"}, {"rows_total", 20 * 1024}});
  const json r = simulate_doc(scenario({{"executors", 5}}, json::object(), json::array({a, b, c})));
  const auto& x = r["exchanges"];
  const auto& q = r["queries"];
  REQUIRE(q.size() == 2);
  CHECK(q[0]["query"] == "q1");
  CHECK(q[0]["exchanges"] == 2);
  const double q1 = x[1]["end_s"].get<double>() - x[0]["start_s"].get<double>();
  const double q2 = x[2]["duration_s"].get<double>();
  show("q1 runtime_s = b.end - a.start", q1, q[0]["runtime_s"].get<double>());
  CHECK(q[0]["runtime_s"].get<double>() == q1);
  CHECK(q[1]["runtime_s"].get<double>() == q2);
  CHECK(r["summary"]["runtime_s_total"].get<double>() == Approx(q1 + q2));
  // Hash figures cover the hash exchange only; it did not push back.
  CHECK(r["summary"]["hash_rpcs"] == x[0]["rpcs"]);
  CHECK(r["summary"]["nonpushback_hash_exchanges"] == 1);
  CHECK(r["summary"]["nonpushback_slowest_sender_blocked_s_total"] == x[0]["slowest_sender_blocked_s"]);
}

TEST_CASE("sequential queries: each starts when the previous ended, whatever the number of jobs",
          "[sim][ordering]") {
  // Three queries simulated in child processes; the merged results must not depend on how many
  // run at once, and the first query must match a run of it alone (nothing else on the cluster).
  auto q = [](const char* query, const char* id, const char* partitioning, int64_t rows) {
    return free_cpu_exchange({{"id", id},
                              {"query", query},
                              {"partitioning", partitioning},
                              {"rows_total", rows},
                              {"producer_ns_per_row", 20}});
  };
  json doc =
      scenario({{"executors", 5}}, json::object(),
               json::array({q("q1", "a", "HASH_PARTITIONED", 200000), q("q2", "b", "RANDOM", 100 * 1024),
                            q("q3", "c", "UNPARTITIONED", 20 * 1024)}));
  doc["query_order"] = "sequential";
  const json one = simulate_doc(doc, 1);
  const json three = simulate_doc(doc, 3);
  CHECK(one.dump() == three.dump());
  const auto& qs = one["queries"];
  REQUIRE(qs.size() == 3);
  show("q2 starts when q1 ends", qs[0]["end_s"].get<double>(), qs[1]["start_s"].get<double>());
  CHECK(qs[1]["start_s"].get<double>() == qs[0]["end_s"].get<double>());
  CHECK(qs[2]["start_s"].get<double>() == qs[1]["end_s"].get<double>());
  CHECK(one["summary"]["makespan_s"].get<double>() ==
        Approx(one["summary"]["runtime_s_total"].get<double>()));
  json alone = doc;
  alone["exchanges"] = json::array({doc["exchanges"][0]});
  alone.erase("query_order");
  const json a = simulate_doc(alone);
  CHECK(a["exchanges"][0]["duration_s"] == one["exchanges"][0]["duration_s"]);
}

TEST_CASE("query_overhead_s: added to every query's runtime, and the next query starts after it",
          "[sim][ordering]") {
  // Expectation: runtime_s = overhead + exchange span; in sequence, query k's exchanges start at
  // (k + 1) x overhead + the spans of the queries before it, so the makespan is the runtime total.
  auto q = [](const char* query, const char* id, int64_t rows) {
    return free_cpu_exchange(
        {{"id", id}, {"query", query}, {"partitioning", "RANDOM"}, {"rows_total", rows}});
  };
  json doc = scenario({{"executors", 2}}, json::object(),
                      json::array({q("q1", "a", 50 * 1024), q("q2", "b", 20 * 1024)}));
  doc["query_order"] = "sequential";
  const json base = simulate_doc(doc, 1);
  doc["query_overhead_s"] = 0.25;
  const json with = simulate_doc(doc, 2);
  const auto& b = base["queries"];
  const auto& w = with["queries"];
  REQUIRE(w.size() == 2);
  for (int i = 0; i < 2; ++i) {
    show("runtime_s = 0.25 + span", 0.25 + b[i]["runtime_s"].get<double>(), w[i]["runtime_s"].get<double>());
    CHECK(w[i]["runtime_s"].get<double>() == Approx(0.25 + b[i]["runtime_s"].get<double>()));
    CHECK(w[i]["exchange_span_s"].get<double>() == Approx(b[i]["exchange_span_s"].get<double>()));
  }
  CHECK(w[0]["start_s"].get<double>() == Approx(0.25));
  CHECK(w[1]["start_s"].get<double>() == Approx(w[0]["end_s"].get<double>() + 0.25));
  CHECK(with["summary"]["makespan_s"].get<double>() ==
        Approx(with["summary"]["runtime_s_total"].get<double>()));
}

TEST_CASE("query work: scan rows over scan threads, work rows over max(1, mt_dop), added to the runtime",
          "[sim][ordering]") {
  // 2 executors of 16 cores, 2 ns per row, query_overhead_s 0.1. q1 has 3.2e9 scan rows and 4e9
  // work rows. mt_dop 0: scans on 16 scanner threads, 3.2e9 x 2 ns / (2 x 16) = 0.2 s, operators on
  // one thread, 4e9 x 2 ns / 2 = 4 s: 4.3 s. mt_dop 4: both on 4 threads, (3.2e9 + 4e9) x 2 ns / 8 =
  // 1.8 s: 1.9 s. mt_dop 0 with query_scanner_threads 8: 0.4 + 4 + 0.1 = 4.5 s.
  auto q = [](const char* query, const char* id, int64_t rows) {
    return free_cpu_exchange(
        {{"id", id}, {"query", query}, {"partitioning", "RANDOM"}, {"rows_total", rows}});
  };
  json doc = scenario({{"executors", 2}}, json::object(),
                      json::array({q("q1", "a", 8 * 1024), q("q2", "b", 8 * 1024)}));
  doc["query_order"] = "sequential";
  doc["query_overhead_s"] = 0.1;
  doc["query_work_ns_per_row"] = 2;
  doc["queries"] = {{"q1", {{"work_rows", 4000000000LL}, {"scan_rows", 3200000000LL}}}};
  for (const auto& [mt_dop, scanners, expected] :
       {std::tuple<int, int, double>{0, 0, 4.3}, {4, 0, 1.9}, {0, 8, 4.5}}) {
    doc["flags"]["mt_dop"] = mt_dop;
    doc["query_scanner_threads"] = scanners;
    const json r = simulate_doc(doc, 1);
    const auto& qs = r["queries"];
    show("q1 outside its exchanges", expected, qs[0]["outside_exchanges_s"].get<double>());
    CHECK(qs[0]["outside_exchanges_s"].get<double>() == Approx(expected));
    CHECK(qs[1]["outside_exchanges_s"].get<double>() == Approx(0.1));
    CHECK(qs[0]["runtime_s"].get<double>() == Approx(expected + qs[0]["exchange_span_s"].get<double>()));
    CHECK(qs[1]["start_s"].get<double>() == Approx(qs[0]["end_s"].get<double>() + 0.1));
  }
}

TEST_CASE("requests to one daemon leave in order on its connection, other daemons share the NIC",
          "[sim][ordering]") {
  // One batch of 1024 rows x (1000 + 4) bytes per exchange, no compression, 1 Gbit/s: S/B = 8.22 ms,
  // one-way latency L = 195 us. Two exchanges from executor 0 to executor 1 share one connection:
  // the first batch arrives at L + S/B, the second behind it at L + 2 S/B (with a flow per request
  // both would arrive at L + 2 S/B). Exchanges to executors 1 and 2 use two connections that share
  // executor 0's NIC: both batches arrive at L + 2 S/B.
  auto ex = [](const char* id, int to) {
    return free_cpu_exchange({{"id", id},
                              {"partitioning", "RANDOM"},
                              {"sender_executors", 1},
                              {"receiver_executors", 1},
                              {"receiver_first_executor", to},
                              {"rows_total", 1024},
                              {"fixed_row_bytes", 1000}});
  };
  const json cluster = {{"executors", 3}, {"nic_bandwidth_gbps", 1}, {"rtt_us", 390}};
  const json flags = {{"compression", false}};
  const double L = 195e-6;
  const double SB = 1024.0 * 1004 * 8 / 1e9;
  auto first_batch = [](const json& r, int i) {
    return r["exchanges"][i]["receiver_instances"][0]["FirstBatchWaitTime_s"].get<double>();
  };
  const json same = simulate_doc(scenario(cluster, flags, json::array({ex("a", 1), ex("b", 1)})));
  const double early = std::min(first_batch(same, 0), first_batch(same, 1));
  const double late = std::max(first_batch(same, 0), first_batch(same, 1));
  show("same daemon: first batch arrives at L + S/B", L + SB, early);
  show("same daemon: second batch arrives at L + 2 S/B", L + 2 * SB, late);
  CHECK(early == Approx(L + SB).epsilon(1e-6));
  CHECK(late == Approx(L + 2 * SB).epsilon(1e-6));
  const json two = simulate_doc(scenario(cluster, flags, json::array({ex("a", 1), ex("c", 2)})));
  show("two daemons: each batch arrives at L + 2 S/B", L + 2 * SB, first_batch(two, 0));
  CHECK(first_batch(two, 0) == Approx(L + 2 * SB).epsilon(1e-6));
  CHECK(first_batch(two, 1) == Approx(L + 2 * SB).epsilon(1e-6));
}
