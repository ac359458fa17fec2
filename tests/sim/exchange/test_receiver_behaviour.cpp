// Receivers: consumer-bound exchanges, backpressure and deferred RPCs, merging limit division.
#include "sim_support.hpp"

using namespace exsim::test;

namespace {

json one_to_one(int k, int64_t batches, double consumer_ns_per_row, int64_t buffer_bytes) {
  json x = free_cpu_exchange({{"id", "x"},
                              {"partitioning", "RANDOM"},
                              {"sender_executors", 1},
                              {"receiver_executors", 1},
                              {"receiver_first_executor", 1},
                              {"rows_total", batches * 1024},
                              {"fixed_row_bytes", 16},
                              {"consumer_ns_per_row", consumer_ns_per_row}});
  return scenario({{"executors", 2}, {"rtt_us", 390}, {"nic_bandwidth_gbps", 100}},
                  {{"rpcs_in_flight_per_channel", k},
                   {"compression", false},
                   {"exchg_node_buffer_size_bytes", buffer_bytes}},
                  json::array({x}));
}

} // namespace

TEST_CASE("a consumer-bound receiver makes K irrelevant", "[sim][receiver]") {
  // 200 batches of 1024 rows; the consumer needs 2 us a row, 2.05 ms a batch, over five RTTs:
  // the exchange takes about rows x 2 us whatever K is.
  const int64_t n = 200;
  const double expected = n * 1024 * 2e-6;
  const json r1 = simulate_doc(one_to_one(1, n, 2000, 10485760));
  const json r4 = simulate_doc(one_to_one(4, n, 2000, 10485760));
  const double t1 = r1["exchanges"][0]["duration_s"].get<double>();
  const double t4 = r4["exchanges"][0]["duration_s"].get<double>();
  show("consumer-bound, K=1: duration_s", expected, t1);
  show("consumer-bound, K=4: duration_s", expected, t4);
  CHECK(t1 == Approx(expected).epsilon(0.01));
  CHECK(t4 == Approx(t1).epsilon(0.01));
  CHECK(r1["exchanges"][0]["bound"] == "receiver_cpu");
}

TEST_CASE("backpressure: every batch after the buffer fills is deferred", "[sim][receiver]") {
  // Batches of 1024 rows x 16 B = 16 KiB (+8 B per row accounting = 24 KiB). A 96 KiB buffer
  // holds 4 of them. The consumer takes 2 ms a batch, more than an RTT, so once the queue is
  // full every arriving batch finds it full: deferred = N - batches the buffer admits - the one
  // the consumer holds.
  const int64_t n = 100;
  const int64_t batch = 1024 * (16 + 8);
  const int64_t limit = 4 * batch;
  const json r = simulate_doc(one_to_one(1, n, 2000, limit));
  const auto& rx = r["exchanges"][0]["receiver_instances"][0];
  const double expected = static_cast<double>(n - limit / batch - 1);
  show("deferred RPCs under backpressure", expected, rx["TotalRPCsDeferred"].get<double>());
  CHECK(rx["TotalRPCsDeferred"].get<double>() == Approx(expected).margin(1));
  CHECK(r["exchanges"][0]["pushed_back"] == true);
  CHECK(r["exchanges"][0]["bound"] == "backpressure");
  // Deferral shows up at the sender as receiver time in the RPC, not network time.
  const auto& tx = r["exchanges"][0]["sender_instances"][0];
  CHECK(tx["RpcRecvrTime_s"].get<double>() > tx["RpcNetworkTime_s"].get<double>());
  // The receiver never held more than its limit plus the batch an empty queue always admits.
  CHECK(rx["PeakBytes"].get<int64_t>() <= limit + batch);
}

TEST_CASE("a merging receiver: one shared limit, consumer-bound, every queue fed", "[sim][receiver]") {
  // 4 senders (executors 0-3) -> 1 merging receiver (executor 4), limit = 4 batches shared by
  // the 4 sender queues; the merger pulls from them in turn at 1 us a row. Senders are faster
  // than the merger, so the buffer fills and RPCs are deferred; the exchange takes about rows x
  // consumer time, and the receiver never holds more than its limit plus one batch per queue
  // (an empty queue always admits one).
  const int64_t batches_per_sender = 50;
  const int64_t batch = 1024 * (16 + 8);
  json x = free_cpu_exchange({{"id", "m"},
                              {"partitioning", "UNPARTITIONED"},
                              {"merging", true},
                              {"sender_executors", 4},
                              {"receiver_executors", 1},
                              {"receiver_first_executor", 4},
                              {"rows_total", 4 * batches_per_sender * 1024},
                              {"fixed_row_bytes", 16},
                              {"consumer_ns_per_row", 1000}});
  const json r = simulate_doc(scenario({{"executors", 5}, {"nic_bandwidth_gbps", 100}},
                                       {{"compression", false}, {"exchg_node_buffer_size_bytes", 4 * batch}},
                                       json::array({x})));
  const auto& e = r["exchanges"][0];
  const auto& rx = e["receiver_instances"][0];
  const double expected = 4 * batches_per_sender * 1024 * 1e-6;
  show("merging, consumer-bound: duration_s", expected, e["duration_s"].get<double>());
  CHECK(e["k"] == 1);
  CHECK(e["duration_s"].get<double>() == Approx(expected).epsilon(0.02));
  CHECK(rx["RowsDequeued"] == 4 * batches_per_sender * 1024);
  CHECK(rx["TotalRPCsDeferred"].get<int64_t>() > 0);
  show("merging: peak receiver bytes <= limit + one batch per queue", 8.0 * batch,
       rx["PeakBytes"].get<double>());
  CHECK(rx["PeakBytes"].get<int64_t>() <= 8 * batch);
}

TEST_CASE("deserialization runs on the service threads in parallel", "[sim][receiver]") {
  // 4 senders (executors 0-3) -> 1 receiver (executor 4), K=1, 50 batches each of 1024 x 16 B;
  // deserializing a batch takes 2 ms (>> RTT). With one service thread the receiver deserializes
  // one batch at a time: 200 x 2 ms. With four, each sender's RPC costs RTT + 2 ms: 50 x that.
  const int64_t n = 50;
  const double d = 2e-3;
  auto make = [&](int threads) {
    json x = free_cpu_exchange({{"id", "x"},
                                {"partitioning", "RANDOM"},
                                {"sender_executors", 4},
                                {"receiver_executors", 1},
                                {"receiver_first_executor", 4},
                                {"rows_total", 4 * n * 1024},
                                {"fixed_row_bytes", 16},
                                {"compression_ratio", 1.0},
                                {"deserialize_ns_per_byte", d * 1e9 / (1024 * 16)}});
    return scenario({{"executors", 5}, {"nic_bandwidth_gbps", 100}},
                    {{"datastream_service_num_svc_threads", threads}}, json::array({x}));
  };
  const json one = simulate_doc(make(1));
  const json four = simulate_doc(make(4));
  const double t1 = one["exchanges"][0]["duration_s"].get<double>();
  const double t4 = four["exchanges"][0]["duration_s"].get<double>();
  show("1 service thread: duration_s", 4 * n * d, t1);
  show("4 service threads: duration_s", n * (d + 390e-6), t4);
  CHECK(t1 == Approx(4 * n * d).epsilon(0.03));
  CHECK(t4 == Approx(n * (d + 390e-6)).epsilon(0.03));
  CHECK(one["exchanges"][0]["receiver_instances"][0]["DeserializeRowBatchTime_s"].get<double>() ==
        Approx(4 * n * d).epsilon(1e-6));
}

TEST_CASE("an adaptive K: gradient grows to its cap unless the receiver pushes back, then settles at 4",
          "[sim][receiver][window]") {
  // One channel, whole 16 KiB batches, no CPU on the sender: the window is the bound. With a fast
  // consumer the round trip stays at its minimum, the gradient is 1 and K climbs to K_max = 8.
  // With a consumer of 2 ms a batch and a buffer of 4 batches, deferred RPCs hold their answers
  // for batches of the consumer's time: the round trip is many times its minimum, the gradient
  // is held at 0.5 and K settles where 0.1 K = 0.2 sqrt(K): K = 4.
  auto adaptive = [](json doc) {
    doc["flags"]["rpcs_in_flight_policy"] = "gradient";
    doc["flags"]["rpcs_in_flight_max"] = 8;
    doc["flags"]["rpcs_in_flight_series"] = true;
    return doc;
  };
  const json free_run = simulate_doc(adaptive(one_to_one(1, 400, 0, 10485760)));
  const json pushed = simulate_doc(adaptive(one_to_one(1, 400, 2000, 4 * 1024 * (16 + 8))));
  const json& wf = free_run["exchanges"][0]["k_window"];
  const json& wp = pushed["exchanges"][0]["k_window"];
  show("fast consumer: largest K", 8, wf["k_max"].get<double>());
  show("pushed back: last K", 4, wp["series"][0]["k"].back().get<double>());
  CHECK(free_run["exchanges"][0]["pushed_back"] == false);
  CHECK(wf["k_max"] == 8);
  CHECK(wf["series"][0]["k"].back() == 8);
  CHECK(pushed["exchanges"][0]["pushed_back"] == true);
  CHECK(wp["series"][0]["k"].back() == 4);
  CHECK(wp["k_mean"].get<double>() < wf["k_mean"].get<double>());
}
