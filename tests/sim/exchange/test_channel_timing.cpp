// Round trips, K and bandwidth: one channel between two executors.
#include "sim_support.hpp"

using namespace exsim::test;

namespace {
constexpr double kRtt = 390e-6;

// One sender on executor 0, one receiver on executor 1, N whole batches of 1024 rows.
json one_channel(int k, int64_t batches, int fixed_row_bytes, double gbps) {
  json x = free_cpu_exchange({{"id", "x"},
                              {"partitioning", "RANDOM"},
                              {"sender_executors", 1},
                              {"receiver_executors", 1},
                              {"receiver_first_executor", 1},
                              {"rows_total", batches * 1024},
                              {"fixed_row_bytes", fixed_row_bytes}});
  return scenario({{"executors", 2}, {"rtt_us", 390}, {"nic_bandwidth_gbps", gbps}},
                  {{"rpcs_in_flight_per_channel", k}, {"compression", false}}, json::array({x}));
}
} // namespace

TEST_CASE("K=1: N batches take N round trips plus end of stream", "[sim][timing]") {
  const int64_t n = 200;
  const json r = simulate_doc(one_channel(1, n, 1, 1000));
  const auto& x = r["exchanges"][0];
  // Each TransmitData: RTT + payload/bandwidth; then EOS: one RTT.
  const double payload = 1024 * (1 + 4); // 1 byte per row + 4-byte offsets
  const double per_rpc = kRtt + payload / (1000e9 / 8);
  const double expected = n * per_rpc + kRtt;
  show("1 channel, K=1, 200 batches: duration_s", expected, x["duration_s"].get<double>());
  CHECK(x["duration_s"].get<double>() == Approx(expected).epsilon(1e-6));
  CHECK(x["rpcs"] == n);
  CHECK(x["eos_rpcs"] == 1);
  // Every RPC's network time is the RTT plus payload time; the receiver answers at once.
  const auto& s = x["sender_instances"][0];
  show("mean RpcNetworkTime_s per TransmitData", per_rpc,
       (s["RpcNetworkTime_s"].get<double>() - kRtt) / static_cast<double>(n));
  CHECK((s["RpcNetworkTime_s"].get<double>() - kRtt) / n == Approx(per_rpc).epsilon(1e-6));
}

TEST_CASE("K=1 with a dispatch delay: each RPC waits for it, RpcNetworkTime does not count it", "[sim][timing]") {
  // A service thread takes each request up 100 us after it arrives (rpc_dispatch_us): every RPC,
  // EOS included, takes RTT + payload/bandwidth + 100 us, and the 100 us are receiver time.
  const int64_t n = 200;
  const double dispatch = 100e-6;
  json doc = one_channel(1, n, 1, 1000);
  doc["cluster"]["rpc_dispatch_us"] = 100;
  const json r = simulate_doc(doc);
  const auto& x = r["exchanges"][0];
  const double per_rpc = kRtt + 1024 * 5 / (1000e9 / 8);
  const double expected = n * (per_rpc + dispatch) + kRtt + dispatch;
  show("1 channel, K=1, 100 us dispatch: duration_s", expected, x["duration_s"].get<double>());
  CHECK(x["duration_s"].get<double>() == Approx(expected).epsilon(1e-6));
  const auto& s = x["sender_instances"][0];
  show("RpcRecvrTime_s: the dispatch of every RPC", (n + 1) * dispatch, s["RpcRecvrTime_s"].get<double>());
  CHECK(s["RpcRecvrTime_s"].get<double>() == Approx((n + 1) * dispatch).epsilon(1e-6));
  CHECK((s["RpcNetworkTime_s"].get<double>() - kRtt) / n == Approx(per_rpc).epsilon(1e-6));
}

TEST_CASE("K=1 with a busy sender: CPU overlaps the round trip, which stays whole", "[sim][timing]") {
  // The sender spends 100 ns a row producing each 1024-row batch (102.4 us). It produces batch
  // i+1 while RPC i is in flight, then waits for it: after the first batch each costs
  // max(CPU, RTT) = RTT, and no RPC takes less than the RTT.
  const int64_t n = 200;
  json doc = one_channel(1, n, 1, 1000);
  doc["exchanges"][0]["producer_ns_per_row"] = 100;
  const json r = simulate_doc(doc);
  const auto& x = r["exchanges"][0];
  const double cpu = 1024 * 100e-9;
  const double per_rpc = kRtt + 1024 * 5 / (1000e9 / 8);
  const double expected = cpu + n * per_rpc + kRtt;
  show("1 channel, K=1, 102.4 us CPU a batch: duration_s", expected, x["duration_s"].get<double>());
  CHECK(x["duration_s"].get<double>() == Approx(expected).epsilon(1e-6));
  const auto& s = x["sender_instances"][0];
  const double mean_net = s["RpcNetworkTime_s"].get<double>() / static_cast<double>(n + 1);
  show("mean RpcNetworkTime_s per RPC (never below the RTT)", per_rpc, mean_net);
  CHECK(mean_net >= kRtt);
  CHECK(s["CpuTime_s"].get<double>() == Approx(n * cpu).epsilon(1e-6));
}

TEST_CASE("K=2: two RPCs in flight, about half the round trips", "[sim][timing]") {
  const int64_t n = 200;
  const json r = simulate_doc(one_channel(2, n, 1, 1000));
  const auto& x = r["exchanges"][0];
  const double expected = n / 2.0 * kRtt + kRtt;
  show("1 channel, K=2, 200 batches: duration_s", expected, x["duration_s"].get<double>());
  CHECK(x["k"] == 2);
  CHECK(x["duration_s"].get<double>() == Approx(expected).epsilon(0.02));
}

TEST_CASE("large K: the channel is bandwidth-bound at bytes / bandwidth", "[sim][timing]") {
  const int64_t n = 400;
  // 1024 rows x 1000 bytes = ~1 MB per batch over 1 Gbit/s: 8.2 ms per batch >> RTT.
  const json r = simulate_doc(one_channel(64, n, 1000, 1));
  const auto& x = r["exchanges"][0];
  const double bytes = x["bytes_sent"].get<double>();
  const double expected = bytes / (1e9 / 8) + kRtt;
  show("1 channel, K=64, 1 Gbit/s: duration_s", expected, x["duration_s"].get<double>());
  CHECK(bytes == Approx(n * 1024.0 * 1004));
  CHECK(x["duration_s"].get<double>() == Approx(expected).epsilon(0.01));
  CHECK(x["bound"] == "bandwidth");
}
