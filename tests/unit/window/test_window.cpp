// The bounded in-flight window (count, bytes, priority, release point, first error), no SimGrid.
#include "models/window/window.hpp"

#include <catch2/catch.hpp>

using namespace exsim;

TEST_CASE("a window admits N requests in flight and no more", "[unit][window]") {
  Window w(3);
  for (int i = 0; i < 3; ++i) {
    REQUIRE(w.can_start());
    CHECK(w.start(0) == i); // the lowest free slot
  }
  CHECK_FALSE(w.has_free_slot());
  CHECK_FALSE(w.can_start(0, /*priority=*/true)); // priority never exceeds the count
  CHECK_THROWS_AS(w.start(0), std::logic_error);
  w.finish(1, 0);
  CHECK(w.in_flight() == 2);
  CHECK(w.start(0) == 1); // the freed slot is reused
  CHECK_THROWS_AS(Window(0), std::logic_error);
}

TEST_CASE("the byte window bounds bytes reserved, a priority request may exceed it", "[unit][window]") {
  Window w(10, 100);
  CHECK(w.byte_limited());
  CHECK(w.can_start(60));
  const int a = w.start(0, 60);
  CHECK(w.reserved_bytes() == 60);
  CHECK(w.can_start(40));
  CHECK_FALSE(w.can_start(41));
  CHECK(w.can_start(41, /*priority=*/true));
  const int b = w.start(0, 41); // the caller chose to let it through (priority)
  CHECK(w.reserved_bytes() == 101);
  CHECK_FALSE(w.fits(0)); // over the limit: nothing fits until bytes are released
  w.finish(b, 0);
  CHECK(w.reserved_bytes() == 60);
  w.finish(a, 0);
  CHECK(w.idle());
  CHECK(w.reserved_bytes() == 0);
  CHECK_FALSE(Window(1, 10).can_start(11)); // an oversized request never fits on its own
}

TEST_CASE("a reservation can outlive its request and is released later", "[unit][window]") {
  Window w(1, 100);
  const int a = w.start(0, 70);
  CHECK(w.finish(a, 0, Window::Release::later) == 70);
  CHECK(w.has_free_slot());        // the slot is free...
  CHECK(w.reserved_bytes() == 70); // ...the bytes are still held (loaded, not yet consumed)
  CHECK_FALSE(w.can_start(31));
  w.release(70);
  CHECK(w.can_start(100));
  CHECK_THROWS_AS(w.release(1), std::logic_error);
}

TEST_CASE("without a byte limit only the count binds", "[unit][window]") {
  Window w(2);
  CHECK_FALSE(w.byte_limited());
  CHECK(w.can_start(int64_t{1} << 60));
  w.start(0, int64_t{1} << 40);
  CHECK(w.fits(int64_t{1} << 60));
}

TEST_CASE("the window keeps the first error, and wait-for-all is idle()", "[unit][window]") {
  Window w(2);
  const int a = w.start(0);
  const int b = w.start(0);
  w.record_error("first");
  w.finish(a, 0);
  CHECK_FALSE(w.idle());
  w.record_error("second");
  w.finish(b, 0);
  CHECK(w.idle());
  REQUIRE(w.first_error());
  CHECK(*w.first_error() == "first");
  CHECK_THROWS_AS(w.finish(b, 0), std::logic_error);
}
