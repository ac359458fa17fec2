// Faults: early receiver close, RPC errors (first error kept, nothing left in flight), cancellation.
#include "sim_support.hpp"

using namespace exsim::test;

namespace {
json hash_2x4(json faults) {
  json x = free_cpu_exchange({{"id", "h"},
                              {"query", "q"},
                              {"partitioning", "HASH_PARTITIONED"},
                              {"sender_executors", 2},
                              {"receiver_executors", 4},
                              {"receiver_first_executor", 1},
                              {"rows_total", 2000000},
                              {"fixed_row_bytes", 64},
                              {"producer_ns_per_row", 100},
                              {"faults", faults}});
  return scenario({{"executors", 5}}, {{"rpcs_in_flight_per_channel", 2}}, json::array({x}));
}
} // namespace

TEST_CASE("a receiver that closes early: its channels are dropped, the exchange completes", "[sim][fault]") {
  const json r =
      simulate_doc(hash_2x4(json::array({{{"kind", "receiver_close"}, {"receiver", 2}, {"at_s", 0.01}}})));
  const auto& e = r["exchanges"][0];
  CHECK(e["status"] == "ok");
  CHECK(e["receivers_closed"] == 1);
  CHECK(e["receiver_instances"][2]["closed"] == true);
  CHECK(e["receiver_instances"][2]["end_s"].get<double>() == Approx(0.01).margin(1e-4));
  // About a quarter of the rows were meant for receiver 2; those after the close are dropped.
  CHECK(e["rows_dropped"].get<int64_t>() > 2000000 / 4 / 2);
  // RowsSent counts the senders' input rows, as Impala's does; the dropped ones are among them.
  CHECK(e["rows_sent"].get<int64_t>() == 2000000);
  CHECK(e["slots_in_flight_after_teardown"] == 0);
}

TEST_CASE("two failing channels: the first error is kept, every slot is awaited", "[sim][fault]") {
  const json r = simulate_doc(
      hash_2x4(json::array({{{"kind", "rpc_error"}, {"sender", 0}, {"receiver", 3}, {"at_s", 0.02}},
                            {{"kind", "rpc_error"}, {"sender", 0}, {"receiver", 1}, {"at_s", 0.021}}})));
  const auto& e = r["exchanges"][0];
  CHECK(e["status"] == "failed");
  const std::string err = e["error"].get<std::string>();
  INFO(err);
  CHECK(err.find("receiver 3") != std::string::npos);
  CHECK(e["slots_in_flight_after_teardown"] == 0);
  CHECK(e["sender_instances"][0]["RpcFailure"].get<int64_t>() >= 1);
  // It stopped soon after the error instead of sending everything.
  CHECK(e["end_s"].get<double>() < 0.03);
  CHECK(e["rows_sent"].get<int64_t>() < 2000000);
  CHECK(r["summary"]["exchanges_failed"] == 1);
}

TEST_CASE("a cancelled query stops its exchanges with nothing in flight", "[sim][fault]") {
  const json r = simulate_doc(hash_2x4(json::array({{{"kind", "cancel"}, {"at_s", 0.015}}})));
  const auto& e = r["exchanges"][0];
  CHECK(e["status"] == "cancelled");
  CHECK(e["end_s"].get<double>() == Approx(0.015).margin(0.002));
  CHECK(e["slots_in_flight_after_teardown"] == 0);
  CHECK(e["error"].get<std::string>().find("cancelled") != std::string::npos);
}

TEST_CASE("an exchange stopped before its first RPC is bound by nothing, one that sent keeps its bound",
          "[sim][fault][bound]") {
  // h fails on an RPC error; w waits for h, so the query aborts before w sends anything.
  json doc = hash_2x4(json::array({{{"kind", "rpc_error"}, {"sender", 0}, {"receiver", 3}, {"at_s", 0.02}}}));
  json w = doc["exchanges"][0];
  w["id"] = "w";
  w["faults"] = json::array();
  w["after"] = json::array({"h"});
  doc["exchanges"].push_back(w);
  const json r = simulate_doc(doc);
  const auto& h = r["exchanges"][0];
  const auto& later = r["exchanges"][1];
  CHECK(h["status"] == "failed");
  CHECK(h["rpcs"].get<int64_t>() > 0);
  CHECK(h["bound"] != "none");
  CHECK(later["status"] == "cancelled");
  CHECK(later["rpcs"] == 0);
  CHECK(later["bound"] == "none");
}
