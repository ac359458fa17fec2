// A sender's configuration from its kind, shape and flags, no SimGrid: the K rule and its reason,
// the send mode, the collector's rows and the planner's memory estimate.
#include "models/exchange/sender_config.hpp"

#include <catch2/catch.hpp>

using namespace exsim;

namespace {

// 5 receivers, 64 fixed + 16 variable bytes a row, a 16 KiB buffer, 1024-row input batches, and the
// flags asking for K=3.
SenderInputs asking_k3(Partitioning p, bool merging = false) {
  SenderInputs in;
  in.partitioning = p;
  in.merging = merging;
  in.receivers = 5;
  in.shape = BatchShape{64, 16, 1, 0.5};
  in.flags.data_stream_sender_buffer_size = 16384;
  in.flags.batch_size = 1024;
  in.flags.rpcs_in_flight_per_channel = 3;
  in.flags.rpcs_in_flight_policy = WindowPolicyKind::fixed;
  in.flags.rpcs_in_flight_max = 1;
  return in;
}

} // namespace

TEST_CASE("the configured K applies to non-merging hash and random senders", "[unit][sender_config]") {
  for (Partitioning p : {Partitioning::hash_partitioned, Partitioning::random}) {
    const SenderConfig c = sender_config(asking_k3(p));
    CHECK(c.k_configured == 3);
    CHECK(c.k == 3);
    CHECK(c.k_reason.empty());
  }
}

TEST_CASE("every other kind keeps K=1 and says why", "[unit][sender_config]") {
  const SenderConfig merging = sender_config(asking_k3(Partitioning::hash_partitioned, true));
  CHECK(merging.k == 1);
  CHECK(merging.k_configured == 3);
  CHECK(merging.k_reason.find("merging") != std::string::npos);
  for (auto [p, name] : {std::pair{Partitioning::unpartitioned, "UNPARTITIONED"},
                         std::pair{Partitioning::kudu, "KUDU"}, std::pair{Partitioning::directed, "DIRECTED"}}) {
    const SenderConfig c = sender_config(asking_k3(p));
    CHECK(c.k == 1);
    CHECK(c.k_configured == 3);
    CHECK(c.k_reason.find(name) != std::string::npos);
  }
}

TEST_CASE("K=1 asked for is no kept K: no reason", "[unit][sender_config]") {
  SenderInputs in = asking_k3(Partitioning::kudu);
  in.flags.rpcs_in_flight_per_channel = 1;
  const SenderConfig c = sender_config(in);
  CHECK(c.k == 1);
  CHECK(c.k_reason.empty());
}

TEST_CASE("an exchange's own K applies to any kind", "[unit][sender_config]") {
  SenderInputs in = asking_k3(Partitioning::kudu);
  in.flags.rpcs_in_flight_per_channel = 2;
  in.k_set_by_exchange = true;
  const SenderConfig c = sender_config(in);
  CHECK(c.k == 2);
  CHECK(c.k_configured == 2);
  CHECK(c.k_reason.empty());
}

TEST_CASE("send mode follows the kind and the channels", "[unit][sender_config]") {
  CHECK(sender_config(asking_k3(Partitioning::hash_partitioned)).mode == SendMode::collectors);
  CHECK(sender_config(asking_k3(Partitioning::kudu)).mode == SendMode::collectors);
  CHECK(sender_config(asking_k3(Partitioning::directed)).mode == SendMode::collectors);
  CHECK(sender_config(asking_k3(Partitioning::random)).mode == SendMode::whole_batch);
  CHECK(sender_config(asking_k3(Partitioning::unpartitioned)).mode == SendMode::broadcast);
  SenderInputs one = asking_k3(Partitioning::hash_partitioned);
  one.receivers = 1;
  CHECK(sender_config(one).mode == SendMode::whole_batch);
}

TEST_CASE("a collector holds the buffer over the fixed row bytes, and the estimate budgets it", "[unit][sender_config]") {
  // Hash, K=3: 16384 / 64 = 256 rows a collector; the planned batch is a full collector,
  // 256 x 80 B = 20480 B; the estimate: 5 channels x (K+1) x 2 x 20480 B.
  const SenderConfig hash = sender_config(asking_k3(Partitioning::hash_partitioned));
  CHECK(hash.collector_rows == 256);
  CHECK(hash.planned_batch_bytes == 256 * 80);
  CHECK(hash.memory_estimate_bytes == 5 * 4 * 2 * 256 * 80);
  // Random, K=3: whole input batches, 1024 x 80 B, still on 5 channels.
  const SenderConfig random = sender_config(asking_k3(Partitioning::random));
  CHECK(random.planned_batch_bytes == 1024 * 80);
  CHECK(random.memory_estimate_bytes == 5 * 4 * 2 * 1024 * 80);
  // Broadcast keeps K=1 and budgets one channel: 1 x 2 x 2 x 1024 x 80 B.
  const SenderConfig broadcast = sender_config(asking_k3(Partitioning::unpartitioned));
  CHECK(broadcast.memory_estimate_bytes == 1 * 2 * 2 * 1024 * 80);
  // Rows wider than the buffer: one row a collector.
  SenderInputs wide = asking_k3(Partitioning::hash_partitioned);
  wide.shape = BatchShape{100000, 0, 1, 0.5};
  CHECK(sender_config(wide).collector_rows == 1);
}

TEST_CASE("an adaptive policy starts at K, applies where K does, and budgets K_max + 1 batches",
          "[unit][sender_config]") {
  SenderInputs in = asking_k3(Partitioning::hash_partitioned);
  in.flags.rpcs_in_flight_policy = WindowPolicyKind::gradient;
  in.flags.rpcs_in_flight_max = 8;
  const SenderConfig c = sender_config(in);
  CHECK(c.window.kind == WindowPolicyKind::gradient);
  CHECK(c.window.initial == 3);
  CHECK(c.window.capacity() == 8);
  // 5 channels x (K_max + 1) batches x 2 (tuple data and compression scratch) x the planned batch,
  // against the same at a fixed K=3: the estimate grows by (8 + 1) / (3 + 1).
  const SenderConfig fixed = sender_config(asking_k3(Partitioning::hash_partitioned));
  CHECK(c.memory_estimate_bytes == 5 * 9 * 2 * c.planned_batch_bytes);
  CHECK(c.memory_estimate_bytes * 4 == fixed.memory_estimate_bytes * 9);

  SenderInputs merging = in;
  merging.merging = true;
  const SenderConfig m = sender_config(merging);
  CHECK(m.window.kind == WindowPolicyKind::fixed);
  CHECK(m.window.capacity() == 1);
  CHECK(m.k_reason.find("merging") != std::string::npos);

  SenderInputs broadcast = in;
  broadcast.partitioning = Partitioning::unpartitioned;
  broadcast.flags.rpcs_in_flight_per_channel = 1; // the policy alone asks for more than the kind runs with: the reason says so
  const SenderConfig b = sender_config(broadcast);
  CHECK(b.window.kind == WindowPolicyKind::fixed);
  CHECK_FALSE(b.k_reason.empty());
}
