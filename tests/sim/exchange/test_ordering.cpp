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
