// Late rows (models/query/late_rows.hpp): what a scan passed for want of a filter, dropped at the
// join that built the filter; and the FIFO stream that carries them through queues and exchanges.
#include <catch2/catch.hpp>

#include "models/query/late_rows.hpp"

using namespace exsim;

TEST_CASE("late rows: the first join that built one of the filters they missed drops them", "[unit][runtime_filter]") {
  // 1000 rows missed filters 0 and 1, 200 missed filter 1 only: the join of filter 0 drops the
  // 1000 and leaves the 200; a join that built neither drops nothing; the join of filter 1 the rest.
  RowMix m = RowMix::late({0, 1}, 1000);
  m.add(RowMix::late({1}, 200));
  CHECK(m.drop_at({0}) == Approx(1000));
  REQUIRE(m.parts.size() == 1);
  CHECK(*m.parts[0].missing == std::vector<int>{1});
  CHECK(m.parts[0].missing == late_set({1})); // one stored copy of each set
  CHECK(m.drop_at({2, 3}) == 0);
  CHECK(m.late_rows() == Approx(200));
  CHECK(m.drop_at({1, 4}) == Approx(200));
  CHECK(m.clean());
}

TEST_CASE("late rows: parts with the same missing filters add up, and scaling by 0 leaves none",
          "[unit][runtime_filter]") {
  RowMix m = RowMix::late({3}, 10);
  m.add(RowMix::late({3}, 30), 0.5);
  m.add(RowMix::late({2, 3}, 4));
  REQUIRE(m.parts.size() == 2);
  CHECK(m.late_rows() == Approx(10 + 15 + 4));
  CHECK(RowMix::late({}, 5).clean());
  m.scale(0);
  CHECK(m.clean());
}

TEST_CASE("mix stream: each reader reads the late share of the stretch it has reached, in order",
          "[unit][runtime_filter]") {
  // Two readers, each reading the whole stream: 100 ordinary rows, then 50 rows of which 40 are
  // late, then 100 ordinary. A reader taking 120 gets 20 of the late stretch (20 x 0.8 = 16 late);
  // its next 40 hold the other 30 (24 late) and 10 ordinary rows; after it, none.
  MixStream s(2);
  s.put(100, RowMix{});
  s.put(50, RowMix::late({7}, 40));
  s.put(100, RowMix{});
  CHECK(s.take(0, 120).late_rows() == Approx(16));
  CHECK(s.take(0, 40).late_rows() == Approx(24));
  CHECK(s.take(0, 90).clean());
  // The second reader in other steps reads the same 40 late rows in all.
  double late = 0;
  for (int i = 0; i < 25; ++i)
    late += s.take(1, 10).late_rows();
  CHECK(late == Approx(40));
  // Past the end: ordinary.
  CHECK(s.take(1, 1000).clean());
}

TEST_CASE("mix stream: consecutive batches in the same state are one stretch, and a reader in between splits them "
          "by rows", "[unit][runtime_filter]") {
  MixStream s(1);
  for (int i = 0; i < 3000; ++i)
    s.put(10, RowMix::late({1}, 10));
  CHECK(s.take(0, 15000).late_rows() == Approx(15000));
  s.put(10, RowMix::late({1, 2}, 5));
  CHECK(s.take(0, 15005).late_rows() == Approx(15000 + 2.5));
  CHECK(s.take(0, 5).late_rows() == Approx(2.5));
}

TEST_CASE("collector mix: a batch carries the late rows of the collector it empties, spread over its rows",
          "[unit][runtime_filter]") {
  // Channel 1's collector holds 100 ordinary rows when 50 rows with 20 late come: 150 rows, 20 late.
  // A batch of 120 leaves with 120/150 of them (16); the 30 left keep 4. 90 ordinary rows join
  // them: the next 120 carry the 4, and the collector is ordinary again. Channel 0 never got late
  // rows: its batches carry none.
  CollectorMix c(2);
  c.route(0, 80, 0, RowMix{});
  c.route(1, 50, 100, RowMix::late({3}, 20));
  c.route(0, 40, 80, RowMix{});
  CHECK(c.leave(0, 120).clean());
  CHECK(c.leave(1, 120).late_rows() == Approx(16));
  c.route(1, 90, 30, RowMix{});
  CHECK(c.leave(1, 120).late_rows() == Approx(4));
  CHECK(c.leave(1, 120).clean());
  // What was routed leaves, whatever the batches: 7 x 13 rows with 13 late each, 3 at a time.
  double late = 0;
  for (int i = 0; i < 7; ++i)
    c.route(0, 13, i * 13, RowMix::late({3}, 13));
  for (int i = 0; i < 31; ++i)
    late += c.leave(0, 3).late_rows();
  CHECK(late == Approx(7 * 13));
}
