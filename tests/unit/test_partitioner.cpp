// Routing policies, no SimGrid.
#include "models/partitioner.hpp"

#include <catch2/catch.hpp>

#include <cmath>
#include <numeric>

using namespace exsim;

TEST_CASE("the row splitter conserves rows and follows the weights", "[unit][routing]") {
  RowSplitter split({1, 1, 2}, 1, 42);
  std::vector<int64_t> per, total(3, 0);
  for (int i = 0; i < 2000; ++i) {
    split.split(1024, per);
    REQUIRE(std::accumulate(per.begin(), per.end(), int64_t{0}) == 1024);
    for (int c = 0; c < 3; ++c)
      total[c] += per[c];
  }
  const double n = 2000.0 * 1024;
  // Expected shares 1/4, 1/4, 1/2; the binomial noise over 2M rows is below 0.1%.
  CHECK(total[0] / n == Approx(0.25).margin(0.002));
  CHECK(total[1] / n == Approx(0.25).margin(0.002));
  CHECK(total[2] / n == Approx(0.50).margin(0.002));
}

TEST_CASE("per-batch counts vary like a binomial", "[unit][routing]") {
  RowSplitter split({1, 1, 1, 1}, 1, 7);
  std::vector<int64_t> per;
  double sum = 0, sum2 = 0;
  const int n = 4000;
  for (int i = 0; i < n; ++i) {
    split.split(1024, per);
    sum += per[0];
    sum2 += static_cast<double>(per[0]) * per[0];
  }
  const double mean = sum / n, var = sum2 / n - mean * mean;
  // Binomial(1024, 1/4): mean 256, variance 192.
  CHECK(mean == Approx(256).margin(1.5));
  CHECK(var == Approx(192).epsilon(0.1));
}

TEST_CASE("directed fanout copies each row to several channels", "[unit][routing]") {
  RowSplitter split({1, 1, 1}, 2, 1);
  std::vector<int64_t> per;
  split.split(100, per);
  CHECK(std::accumulate(per.begin(), per.end(), int64_t{0}) == 200);
}

TEST_CASE("the same seed gives the same split", "[unit][routing]") {
  RowSplitter a({1, 2, 3}, 1, 99), b({1, 2, 3}, 1, 99);
  std::vector<int64_t> pa, pb;
  for (int i = 0; i < 100; ++i) {
    a.split(1000, pa);
    b.split(1000, pb);
    REQUIRE(pa == pb);
  }
}

TEST_CASE("round robin visits every channel once per cycle", "[unit][routing]") {
  RoundRobin rr(5, 3);
  std::vector<int> seen(5, 0);
  for (int i = 0; i < 10; ++i)
    seen[rr.next()]++;
  for (int c : seen)
    CHECK(c == 2);
}

TEST_CASE("collector fill events are ordered by position in the input batch", "[unit][routing]") {
  // Channel 0 needs 10 more rows of its 40 (fills at 1/4), channel 1 needs 50 of 100 (1/2) and
  // again 100 later (fills twice would need 150: only once), channel 2 receives nothing.
  const auto ev = collector_fill_events({90, 50, 0}, {40, 100, 0}, 100);
  REQUIRE(ev.size() == 2);
  CHECK(ev[0].channel == 0);
  CHECK(ev[0].position == Approx(0.25));
  CHECK(ev[1].channel == 1);
  CHECK(ev[1].position == Approx(0.5));
  // A one-row capacity fills at every row.
  CHECK(collector_fill_events({0}, {3}, 1).size() == 3);
}

TEST_CASE("send modes and the default K rule", "[unit][routing]") {
  CHECK(send_mode(Partitioning::hash_partitioned, 5) == SendMode::collectors);
  CHECK(send_mode(Partitioning::hash_partitioned, 1) == SendMode::whole_batch);
  CHECK(send_mode(Partitioning::random, 5) == SendMode::whole_batch);
  CHECK(send_mode(Partitioning::unpartitioned, 5) == SendMode::broadcast);
  CHECK(uses_configured_k(Partitioning::hash_partitioned, false));
  CHECK(uses_configured_k(Partitioning::random, false));
  CHECK_FALSE(uses_configured_k(Partitioning::hash_partitioned, true));
  CHECK_FALSE(uses_configured_k(Partitioning::unpartitioned, false));
  CHECK_FALSE(uses_configured_k(Partitioning::kudu, false));
  CHECK_FALSE(uses_configured_k(Partitioning::directed, false));
  // The reason is given exactly where the rule keeps K=1.
  CHECK(kept_k_reason(Partitioning::hash_partitioned, false).empty());
  CHECK(kept_k_reason(Partitioning::random, false).empty());
  CHECK(kept_k_reason(Partitioning::hash_partitioned, true).find("merging") != std::string::npos);
  CHECK(kept_k_reason(Partitioning::unpartitioned, false).find("UNPARTITIONED") != std::string::npos);
  CHECK(kept_k_reason(Partitioning::kudu, false).find("KUDU") != std::string::npos);
  CHECK(kept_k_reason(Partitioning::directed, false).find("DIRECTED") != std::string::npos);
  Partitioning p;
  CHECK(parse_partitioning("KUDU", p));
  CHECK(p == Partitioning::kudu);
  CHECK_FALSE(parse_partitioning("HASH", p));
}
