// The receiver's admission rule, no SimGrid.
#include "models/receiver_queue.hpp"

#include <catch2/catch.hpp>

using namespace exsim;

TEST_CASE("a non-merging receiver admits up to its limit, then defers", "[unit][receiver]") {
  ReceiverQueues q(false, 2, 1000);
  CHECK(q.offer(0, 400) == Admission::admit);
  q.enqueue({0, 1, 400});
  CHECK(q.offer(1, 400) == Admission::admit);
  q.enqueue({1, 1, 400});
  CHECK(q.offer(0, 400) == Admission::defer); // 1200 > 1000
  q.defer({7, 0, 400});
  // While an RPC is deferred, even a batch that would fit waits behind it.
  CHECK(q.offer(1, 100) == Admission::defer);
  q.defer({8, 1, 100});
  CHECK(q.pop(0).bytes == 400);
  auto a = q.admit_deferred(0);
  REQUIRE(a);
  CHECK(a->id == 7);
  q.enqueue({0, 1, 400});
  auto b = q.admit_deferred(0);
  REQUIRE(b); // 800 + 100 <= 1000
  CHECK(b->id == 8);
  q.enqueue({1, 1, 100});
  CHECK(q.offer(0, 200) == Admission::defer); // 900 + 200 > 1000
}

TEST_CASE("an empty queue always admits one batch", "[unit][receiver]") {
  ReceiverQueues q(false, 1, 1000);
  CHECK(q.offer(0, 5000) == Admission::admit);
  CHECK(q.offer(0, 1) == Admission::defer); // reserved but not yet enqueued: not empty
}

TEST_CASE("a merging receiver divides its limit across active queues", "[unit][receiver]") {
  // 4 senders, limit 4000: each queue may hold 1000 bytes.
  ReceiverQueues q(true, 4, 4000);
  CHECK(q.limit_for(0) == 1000);
  CHECK(q.offer(0, 600) == Admission::admit); // empty queue
  q.enqueue({0, 1, 600});
  CHECK(q.offer(0, 600) == Admission::defer); // 1200 > 1000, though the receiver holds 600 of 4000
  CHECK(q.offer(1, 600) == Admission::admit); // another sender's queue is separate
  q.enqueue({1, 1, 600});
  // When two senders finish, the remaining two active queues get 2000 each.
  q.end_of_stream(2);
  q.end_of_stream(3);
  CHECK(q.limit_for(0) == 2000);
  CHECK(q.offer(0, 600) == Admission::admit);
}

TEST_CASE("queues finish when every sender ended and nothing is left", "[unit][receiver]") {
  ReceiverQueues q(false, 2, 1000);
  CHECK(q.offer(0, 10) == Admission::admit);
  q.enqueue({0, 1, 10});
  q.end_of_stream(0);
  q.end_of_stream(1);
  CHECK_FALSE(q.all_finished());
  q.pop(0);
  CHECK(q.all_finished());
}
