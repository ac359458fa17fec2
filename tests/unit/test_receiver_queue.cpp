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

TEST_CASE("a merging receiver shares one limit and an empty sender queue always admits", "[unit][receiver]") {
  // 4 senders, limit 1500: sender 0's queue takes two 600-byte batches (1200), a third would
  // exceed the limit and is deferred. Sender 1's queue is empty, so its batch is admitted although
  // the receiver goes over its limit: the merger needs a batch from every sender.
  ReceiverQueues q(true, 4, 1500);
  CHECK(q.offer(0, 600) == Admission::admit);
  q.enqueue({0, 1, 600});
  CHECK(q.offer(0, 600) == Admission::admit);
  q.enqueue({0, 1, 600});
  CHECK(q.offer(0, 600) == Admission::defer);
  q.defer({1, 0, 600});
  CHECK(q.offer(1, 600) == Admission::admit); // empty queue
  q.enqueue({1, 1, 600});
  CHECK(q.buffered_bytes() == 1800);
  CHECK(q.offer(2, 600) == Admission::admit); // empty queue again
  q.enqueue({2, 1, 600});
  // Popping sender 0's batch leaves 1800: the deferred 600 still does not fit (2400 > 1500).
  q.pop(0);
  CHECK_FALSE(q.admit_deferred(0));
  q.pop(1);
  q.pop(2);
  // 600 left: now it fits.
  REQUIRE(q.admit_deferred(0));
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
