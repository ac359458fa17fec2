// Routing policies, no SimGrid.
#include "models/exchange/partitioner.hpp"

#include <catch2/catch.hpp>

#include <cmath>
#include <numeric>

using namespace exsim;

namespace {
// Sum of a split, and one channel's rows (0 when untouched); checks each touched channel is
// listed once and every other one is 0.
int64_t checked_total(const BatchSplit& s) {
  int64_t total = 0;
  std::vector<int> seen(s.rows.size(), 0);
  for (int c : s.touched) {
    REQUIRE(s.rows[static_cast<size_t>(c)] > 0);
    REQUIRE(++seen[static_cast<size_t>(c)] == 1);
  }
  for (size_t c = 0; c < s.rows.size(); ++c) {
    if (!seen[c]) REQUIRE(s.rows[c] == 0);
    total += s.rows[c];
  }
  return total;
}

// A full batch of 1024 rows: the chain for a few channels; row by row for the same weights when
// the batch is small against them (the way of drawing depends on channels x 8 against it).
constexpr int64_t kChainBatch = 1024;
constexpr int64_t kRowBatch = 8;
} // namespace

TEST_CASE("the row splitter conserves rows and follows the weights, both ways of drawing", "[unit][routing]") {
  for (const int64_t batch : {kChainBatch, kRowBatch}) {
    RowSplitter split({1, 1, 2}, 1, 42, batch);
    CHECK(split.row_by_row() == (batch == kRowBatch));
    BatchSplit per;
    std::vector<int64_t> total(3, 0);
    for (int i = 0; i < 2000; ++i) {
      split.split(1024, per);
      REQUIRE(checked_total(per) == 1024);
      for (int c = 0; c < 3; ++c)
        total[c] += per.rows[c];
    }
    const double n = 2000.0 * 1024;
    // Expected shares 1/4, 1/4, 1/2; the multinomial noise over 2M rows is below 0.1%.
    INFO("batch " << batch);
    CHECK(total[0] / n == Approx(0.25).margin(0.002));
    CHECK(total[1] / n == Approx(0.25).margin(0.002));
    CHECK(total[2] / n == Approx(0.50).margin(0.002));
  }
}

TEST_CASE("per-batch counts vary like a binomial, both ways of drawing", "[unit][routing]") {
  for (const int64_t batch : {kChainBatch, kRowBatch}) {
    RowSplitter split({1, 1, 1, 1}, 1, 7, batch);
    BatchSplit per;
    double sum = 0, sum2 = 0;
    const int n = 4000;
    for (int i = 0; i < n; ++i) {
      split.split(1024, per);
      sum += per.rows[0];
      sum2 += static_cast<double>(per.rows[0]) * per.rows[0];
    }
    const double mean = sum / n, var = sum2 / n - mean * mean;
    // Binomial(1024, 1/4): mean 256, variance 192.
    INFO("batch " << batch);
    CHECK(mean == Approx(256).margin(1.5));
    CHECK(var == Approx(192).epsilon(0.1));
  }
}

TEST_CASE("row by row follows uneven weights over many channels (alias table)", "[unit][routing]") {
  // 300 channels, channel c weighing 1 + (c % 7): expected share (1 + c % 7) / sum. Rows are
  // fewer than channels, so a batch touches only some of them.
  std::vector<double> w;
  for (int c = 0; c < 300; ++c)
    w.push_back(1 + c % 7);
  const double wsum = std::accumulate(w.begin(), w.end(), 0.0);
  RowSplitter split(w, 1, 11, 1024);
  REQUIRE(split.row_by_row());
  BatchSplit per;
  std::vector<double> total(300, 0);
  const int batches = 20000;
  for (int i = 0; i < batches; ++i) {
    split.split(100, per);
    REQUIRE(checked_total(per) == 100);
    CHECK(per.touched.size() <= 100);
    for (int c : per.touched)
      total[static_cast<size_t>(c)] += per.rows[static_cast<size_t>(c)];
  }
  // 2M rows: a channel expecting p x 2M rows has a standard deviation of sqrt(p x 2M); 5 sd.
  for (size_t c = 0; c < 300; ++c) {
    const double expected = w[c] / wsum * batches * 100;
    INFO("channel " << c);
    CHECK(std::abs(total[c] - expected) < 5 * std::sqrt(expected));
  }
}

TEST_CASE("directed fanout copies each row to several channels, both ways of drawing", "[unit][routing]") {
  for (const int64_t batch : {kChainBatch, int64_t{2}}) {
    RowSplitter split({1, 1, 1}, 2, 1, batch);
    BatchSplit per;
    split.split(100, per);
    CHECK(checked_total(per) == 200);
  }
}

TEST_CASE("the same seed gives the same split", "[unit][routing]") {
  for (const int64_t batch : {kChainBatch, kRowBatch}) {
    RowSplitter a({1, 2, 3}, 1, 99, batch), b({1, 2, 3}, 1, 99, batch);
    BatchSplit pa, pb;
    for (int i = 0; i < 100; ++i) {
      a.split(1000, pa);
      b.split(1000, pb);
      REQUIRE(pa.rows == pb.rows);
      REQUIRE(pa.touched == pb.touched);
    }
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
  BatchSplit in;
  in.reset(3);
  in.add(0, 40);
  in.add(1, 100);
  std::vector<FillEvent> ev;
  collector_fill_events({90, 50, 0}, in, 100, ev);
  REQUIRE(ev.size() == 2);
  CHECK(ev[0].channel == 0);
  CHECK(ev[0].position == Approx(0.25));
  CHECK(ev[1].channel == 1);
  CHECK(ev[1].position == Approx(0.5));
  // A one-row capacity fills at every row.
  in.reset(1);
  in.add(0, 3);
  collector_fill_events({0}, in, 1, ev);
  CHECK(ev.size() == 3);
}

TEST_CASE("send modes and partitioning names", "[unit][routing]") {
  CHECK(send_mode(Partitioning::hash_partitioned, 5) == SendMode::collectors);
  CHECK(send_mode(Partitioning::hash_partitioned, 1) == SendMode::whole_batch);
  CHECK(send_mode(Partitioning::random, 5) == SendMode::whole_batch);
  CHECK(send_mode(Partitioning::unpartitioned, 5) == SendMode::broadcast);
  Partitioning p;
  CHECK(parse_partitioning("KUDU", p));
  CHECK(p == Partitioning::kudu);
  CHECK_FALSE(parse_partitioning("HASH", p));
}

TEST_CASE("the sender kinds' table: one row per kind, what each place asks of it", "[unit][routing]") {
  const auto& table = partitioning_table();
  REQUIRE(table.size() == partitioning_names().size());
  for (size_t i = 0; i < table.size(); ++i) {
    // In enum order, and every name parses back to its kind.
    CHECK(static_cast<size_t>(table[i].kind) == i);
    Partitioning p;
    CHECK(parse_partitioning(table[i].name, p));
    CHECK(p == table[i].kind);
    CHECK(to_string(p) == table[i].name);
    // A kind that sends to every receiver does not route rows, and its send mode follows the table.
    CHECK_FALSE((table[i].every_receiver && table[i].routes_rows));
    const SendMode many = send_mode(table[i].kind, 5);
    CHECK(many == (table[i].every_receiver ? SendMode::broadcast
                                           : table[i].routes_rows ? SendMode::collectors : SendMode::whole_batch));
    CHECK(send_mode(table[i].kind, 1) == SendMode::whole_batch);
  }
  // Impala: hashing per row for HASH, KUDU and DIRECTED; the K=2 prototype for HASH and RANDOM only.
  CHECK(traits(Partitioning::kudu).routes_rows);
  CHECK(traits(Partitioning::directed).routes_rows);
  CHECK_FALSE(traits(Partitioning::random).routes_rows);
  CHECK(traits(Partitioning::hash_partitioned).configured_k);
  CHECK(traits(Partitioning::random).configured_k);
  CHECK_FALSE(traits(Partitioning::kudu).configured_k);
  CHECK(traits(Partitioning::unpartitioned).every_receiver);
}
