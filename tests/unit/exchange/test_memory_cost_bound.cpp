// Memory estimates, CPU cost arithmetic and bound classification, no SimGrid.
#include "models/exchange/bound.hpp"
#include "models/exchange/cost.hpp"
#include "models/exchange/memory.hpp"

#include <catch2/catch.hpp>

using namespace exsim;

TEST_CASE("the sink estimate budgets K+1 batches per channel", "[unit][memory]") {
  // 5 channels x (K+1) x 2 x 16 KiB.
  CHECK(sender_memory_estimate(Partitioning::hash_partitioned, 5, 1, 16384) == 5 * 2 * 2 * 16384);
  CHECK(sender_memory_estimate(Partitioning::hash_partitioned, 5, 2, 16384) == 5 * 3 * 2 * 16384);
  CHECK(sender_memory_estimate(Partitioning::random, 5, 2, 16384) == 5 * 3 * 2 * 16384);
  // Broadcast budgets one channel.
  CHECK(sender_memory_estimate(Partitioning::unpartitioned, 5, 1, 16384) == 1 * 2 * 2 * 16384);
  // The batch is capped at 8 MB.
  CHECK(sender_memory_estimate(Partitioning::hash_partitioned, 1, 1, 1LL << 30) == 2 * 2 * (8LL << 20));
}

TEST_CASE("the exchange node estimate", "[unit][memory]") {
  CHECK(receiver_memory_estimate(false, 10, 10485760) == 10485760);
  CHECK(receiver_memory_estimate(true, 10, 10485760) == 10 * 10485760LL);
  CHECK(receiver_memory_estimate(false, 1, 100) == kMinExchangeNodeEstimateBytes);
}

TEST_CASE("CPU costs", "[unit][cost]") {
  CpuCosts c{};
  c.hash_ns_per_row = 5;
  c.copy_ns_per_row = 3;
  c.compress_ns_per_byte = 1;
  c.serialize_ns_per_byte = 0.5;
  c.deserialize_ns_per_byte = 0.25;
  // Collector kinds hash each row and copy it into each collector it goes to; RANDOM does neither.
  CHECK(sender_row_ns(c, Partitioning::hash_partitioned, 1) == Approx(8));
  CHECK(sender_row_ns(c, Partitioning::directed, 2) == Approx(11));
  CHECK(sender_row_ns(c, Partitioning::random, 1) == Approx(0));
  CHECK(serialize_ns(c, 1000, true) == Approx(1500));
  CHECK(serialize_ns(c, 1000, false) == Approx(500));
  CHECK(deserialize_ns(c, 1000, true) == Approx(250));
  CHECK(deserialize_ns(c, 1000, false) == Approx(500)); // a copy out of the payload
}

TEST_CASE("bound classification", "[unit][bound]") {
  BoundFigures f{1.0, 0.0, 0.5, 0.1, 0.0, 0.0004, 0.00039};
  CHECK(classify_bound(f) == Bound::sender_cpu);
  f.has_deferred_s = 0.5;
  CHECK(classify_bound(f) == Bound::backpressure);
  f.has_deferred_s = 0;
  f.slowest_blocked_s = 0.6;
  CHECK(classify_bound(f) == Bound::rpc_window);
  f.mean_rpc_network_s = 0.002;
  CHECK(classify_bound(f) == Bound::bandwidth);
  f.slowest_blocked_s = 0;
  f.receiver_cpu_s = 0.9;
  CHECK(classify_bound(f) == Bound::receiver_cpu);
  // Cancelled or failed before any TransmitData RPC: nothing bound it, whatever the other figures.
  f.stopped_without_data = true;
  CHECK(classify_bound(f) == Bound::none);
  CHECK(to_string(Bound::none) == "none");
}
