// Senders: end-of-stream flushing, broadcast, hash head-of-line blocking, default K rule, memory.
#include "sim_support.hpp"

using namespace exsim::test;

namespace {
constexpr double kRtt = 390e-6;

// One hash sender on executor 0 -> `receivers` receivers on executors 1..; `rows` small enough
// that no collector fills before the end: every batch goes out in the final flush.
json flush_only(int receivers, const char* eos_flush, double rtt_us) {
  json x = free_cpu_exchange({{"id", "h"},
                              {"partitioning", "HASH_PARTITIONED"},
                              {"sender_executors", 1},
                              {"receiver_executors", receivers},
                              {"receiver_first_executor", 1},
                              {"rows_total", 10 * receivers},
                              {"fixed_row_bytes", 64}});
  return scenario({{"executors", receivers + 1}, {"rtt_us", rtt_us}, {"nic_bandwidth_gbps", 100}},
                  {{"eos_flush", eos_flush}}, json::array({x}));
}
} // namespace

TEST_CASE("pipelined flush takes about 2 RTT, serial about 2 RTT per channel", "[sim][eos]") {
  const int receivers = 4;
  const json p = simulate_doc(flush_only(receivers, "pipelined", 390));
  const json s = simulate_doc(flush_only(receivers, "serial", 390));
  const double tp = p["exchanges"][0]["duration_s"].get<double>();
  const double ts = s["exchanges"][0]["duration_s"].get<double>();
  show("pipelined flush, 4 channels: duration_s", 2 * kRtt, tp);
  show("serial flush, 4 channels: duration_s", 2 * kRtt * receivers, ts);
  CHECK(tp == Approx(2 * kRtt).epsilon(0.02));
  CHECK(ts == Approx(2 * kRtt * receivers).epsilon(0.02));
  CHECK(p["exchanges"][0]["eos_rpcs"] == receivers);
  CHECK(s["exchanges"][0]["rows_sent"] == 10 * receivers);
}

TEST_CASE("broadcast waits for every channel", "[sim][broadcast]") {
  // 1 sender -> 4 receivers, 100 batches. With no slow receiver each batch costs one RTT (all four
  // RPCs fly together). With one receiver consuming 2 us a row (2 ms a batch) and a one-batch
  // buffer, every channel moves at the slow receiver's pace: rows x 2 us.
  const int64_t n = 100;
  auto make = [&](double slow) {
    json x = free_cpu_exchange({{"id", "b"},
                                {"partitioning", "UNPARTITIONED"},
                                {"sender_executors", 1},
                                {"receiver_executors", 4},
                                {"receiver_first_executor", 1},
                                {"rows_total", n * 1024},
                                {"fixed_row_bytes", 16},
                                {"consumer_ns_per_row", 1},
                                {"receiver_consumer_slowdown", {slow, 1, 1, 1}}});
    return scenario({{"executors", 5}, {"nic_bandwidth_gbps", 100}},
                    {{"compression", false}, {"exchg_node_buffer_size_bytes", 1024 * 24}}, json::array({x}));
  };
  const json fast = simulate_doc(make(1));
  const json slow = simulate_doc(make(2000));
  const double tf = fast["exchanges"][0]["duration_s"].get<double>();
  const double ts = slow["exchanges"][0]["duration_s"].get<double>();
  show("broadcast, 4 fast receivers: duration_s", n * kRtt + kRtt, tf);
  show("broadcast, one receiver at 2 us/row: duration_s", n * 1024 * 2e-6, ts);
  CHECK(fast["exchanges"][0]["rpcs"] == 4 * n);
  CHECK(tf == Approx(n * kRtt + kRtt).epsilon(0.05));
  CHECK(ts == Approx(n * 1024 * 2e-6).epsilon(0.03));
  // The fast receivers are held back too: they finish with the slow one.
  const auto& rx = slow["exchanges"][0]["receiver_instances"];
  CHECK(rx[1]["end_s"].get<double>() == Approx(rx[0]["end_s"].get<double>()).epsilon(0.02));
}

TEST_CASE("hash head-of-line blocking: one slow channel stalls the whole sender", "[sim][hash]") {
  // 1 sender -> 4 receivers, 400 input batches of 1024 rows, rows spread evenly. Receiver 0
  // consumes 4 us a row, the others are free, with a buffer of two collector batches. The single
  // sender thread blocks on channel 0, so every channel advances at channel 0's pace:
  // duration ~ rows for receiver 0 x 4 us, and the fast receivers wait for data most of the time.
  const int64_t rows = 400 * 1024;
  json x = free_cpu_exchange({{"id", "h"},
                              {"partitioning", "HASH_PARTITIONED"},
                              {"sender_executors", 1},
                              {"receiver_executors", 4},
                              {"receiver_first_executor", 1},
                              {"rows_total", rows},
                              {"fixed_row_bytes", 64},
                              {"consumer_ns_per_row", 1},
                              {"receiver_consumer_slowdown", {4000, 1, 1, 1}}});
  const json r = simulate_doc(
      scenario({{"executors", 5}, {"nic_bandwidth_gbps", 100}},
               {{"compression", false}, {"exchg_node_buffer_size_bytes", 2 * 256 * 72}}, json::array({x})));
  const auto& e = r["exchanges"][0];
  const double expected = rows / 4.0 * 4e-6;
  show("hash, one slow channel: duration_s", expected, e["duration_s"].get<double>());
  CHECK(e["duration_s"].get<double>() == Approx(expected).epsilon(0.05));
  const auto& rx = e["receiver_instances"];
  for (int i = 1; i < 4; ++i) {
    show("fast receiver DataWaitTime_s / duration", 1.0,
         rx[i]["DataWaitTime_s"].get<double>() / e["duration_s"].get<double>());
    CHECK(rx[i]["DataWaitTime_s"].get<double>() > 0.9 * e["duration_s"].get<double>());
  }
  CHECK(e["slowest_sender_blocked_s"].get<double>() > 0.9 * e["duration_s"].get<double>());
}

TEST_CASE("results report the effective K and the K+1 memory estimate", "[sim][memory]") {
  json h = free_cpu_exchange(
      {{"id", "h"}, {"partitioning", "HASH_PARTITIONED"}, {"rows_total", 100000}, {"fixed_row_bytes", 64}});
  json b = free_cpu_exchange(
      {{"id", "b"}, {"partitioning", "UNPARTITIONED"}, {"rows_total", 10000}, {"fixed_row_bytes", 64}});
  const json r =
      simulate_doc(scenario({{"executors", 5}}, {{"rpcs_in_flight_per_channel", 3}}, json::array({h, b})));
  const auto& xh = r["exchanges"][0];
  const auto& xb = r["exchanges"][1];
  CHECK(xh["k"] == 3);
  CHECK(xb["k"] == 1);
  // Each says which K was configured and, where it was not applied, why.
  CHECK(xh["k_configured"] == 3);
  CHECK(xh["k_reason"] == "");
  CHECK(xb["k_configured"] == 3);
  CHECK(xb["k_reason"].get<std::string>().find("UNPARTITIONED senders keep K=1") != std::string::npos);
  // Hash: 5 senders x 5 channels x (3+1) x 2 x (256 rows x 64 B).
  CHECK(xh["memory_estimate_bytes"] == 5 * 5 * 4 * 2 * 256 * 64);
  // Broadcast: 5 senders x 1 channel x (1+1) x 2 x (1024 rows x 64 B).
  CHECK(xb["memory_estimate_bytes"] == 5 * 1 * 2 * 2 * 1024 * 64);
  CHECK(r["summary"]["rpcs"] == xh["rpcs"].get<int64_t>() + xb["rpcs"].get<int64_t>());
  // Every row arrives.
  int64_t dequeued = 0;
  for (const auto& rx : xh["receiver_instances"])
    dequeued += rx["RowsDequeued"].get<int64_t>();
  CHECK(dequeued == 100000);
}
