// The K-slot channel's bookkeeping, no SimGrid.
#include "models/exchange/channel.hpp"

#include <catch2/catch.hpp>

using namespace exsim;

TEST_CASE("a channel admits K RPCs in flight and no more", "[unit][channel]") {
  Channel ch(3);
  for (int i = 0; i < 3; ++i) {
    REQUIRE(ch.has_free_slot());
    ch.start_rpc(0.0, 100, 10, false);
  }
  CHECK_FALSE(ch.has_free_slot());
  CHECK(ch.in_flight() == 3);
  CHECK_THROWS_AS(ch.start_rpc(0.0, 1, 1, false), std::logic_error);
}

TEST_CASE("finishing an RPC frees its slot and reports its duration", "[unit][channel]") {
  Channel ch(2);
  const int a = ch.start_rpc(1.0, 100, 10, false);
  const int b = ch.start_rpc(1.5, 200, 20, true);
  CHECK(a != b);
  const RpcOutcome out = ch.finish_rpc(b, 2.0, RpcStatus::ok);
  CHECK(out.duration == Approx(0.5));
  CHECK(out.eos);
  CHECK(out.wire_bytes == 200);
  CHECK(ch.in_flight() == 1);
  CHECK(ch.start_rpc(2.0, 1, 1, false) == b); // the freed slot is reused
}

TEST_CASE("the first RPC error is kept", "[unit][channel]") {
  Channel ch(2);
  const int a = ch.start_rpc(0, 1, 1, false);
  const int b = ch.start_rpc(0, 1, 1, false);
  ch.finish_rpc(a, 1, RpcStatus::error, "first");
  ch.finish_rpc(b, 2, RpcStatus::error, "second");
  REQUIRE(ch.first_error());
  CHECK(*ch.first_error() == "first");
  CHECK(ch.idle());
}

TEST_CASE("a receiver-closed answer closes the channel", "[unit][channel]") {
  Channel ch(1);
  ch.finish_rpc(ch.start_rpc(0, 1, 1, false), 1, RpcStatus::receiver_closed);
  CHECK(ch.receiver_closed());
  CHECK_FALSE(ch.first_error());
}
