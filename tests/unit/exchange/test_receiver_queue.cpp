// The receiver's admission rule (KrpcDataStreamRecvr after IMPALA-13475), no SimGrid.
#include "models/exchange/receiver_queue.hpp"

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
  std::vector<DeferredRpc> promoted;
  q.promote_deferred(0, 16, promoted);
  // 400 queued: the first deferred (400) fits (800), the second (100) too (900).
  REQUIRE(promoted.size() == 2);
  CHECK(promoted[0].id == 7);
  CHECK(promoted[1].id == 8);
  q.enqueue({0, 1, 400});
  q.enqueue({1, 1, 100});
  CHECK(q.offer(0, 200) == Admission::defer); // 900 + 200 > 1000
}

TEST_CASE("deferred RPCs are promoted only while the pool has threads for the queue", "[unit][receiver]") {
  // Limit 10000, batches of 100: everything fits, but only 2 promoted batches may be deserialized
  // for the queue at once.
  ReceiverQueues q(false, 1, 10000);
  REQUIRE(q.offer(0, 9950) == Admission::admit);
  q.enqueue({0, 1, 9950});
  for (int i = 0; i < 4; ++i) {
    CHECK(q.offer(0, 100) == Admission::defer);
    q.defer({i, 0, 100});
  }
  q.pop(0);
  std::vector<DeferredRpc> promoted;
  q.promote_deferred(0, 2, promoted);
  CHECK(promoted.size() == 2);
  q.enqueue({0, 1, 100}); // one of them is deserialized: room for one more
  promoted.clear();
  q.promote_deferred(0, 2, promoted);
  CHECK(promoted.size() == 1);
  CHECK(q.deferred_count() == 1);
}

TEST_CASE("an empty queue always admits one batch", "[unit][receiver]") {
  ReceiverQueues q(false, 1, 1000);
  CHECK(q.offer(0, 5000) == Admission::admit);
  CHECK(q.offer(0, 1) == Admission::defer); // reserved but not yet enqueued: not empty
}

TEST_CASE("a merging receiver divides its limit among the senders still sending", "[unit][receiver]") {
  // 4 senders, limit 2000: each sender queue may hold 500 bytes.
  ReceiverQueues q(true, 4, 2000);
  CHECK(q.limit_of(0) == 500);
  CHECK(q.offer(0, 400) == Admission::admit); // empty queue
  q.enqueue({0, 1, 400});
  CHECK(q.offer(0, 200) == Admission::defer); // 600 > 500
  q.defer({1, 0, 200});
  CHECK(q.offer(1, 2000) == Admission::admit); // another sender's empty queue: always admitted
  q.enqueue({1, 1, 2000});
  // Senders 2 and 3 end their streams: two queues share the limit, 1000 each, and the deferred
  // batch of sender 0 now fits when the consumer next takes a batch from queue 0.
  q.end_of_stream(2);
  q.end_of_stream(3);
  CHECK(q.limit_of(0) == 1000);
  q.pop(0);
  std::vector<DeferredRpc> promoted;
  q.promote_deferred(0, 16, promoted);
  REQUIRE(promoted.size() == 1);
  CHECK(promoted[0].id == 1);
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
