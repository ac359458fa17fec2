#include "models/core/ring.hpp"

#include <catch2/catch.hpp>

#include <deque>

using exsim::Ring;

TEST_CASE("Ring keeps first-in first-out order through growth and wrap-around", "[ring]") {
  // Expectation: the same sequence as a std::deque fed the same pushes and pops. The pattern
  // pushes three and takes two at a time, so the ring wraps around many times and grows while
  // its front is in the middle of the array.
  Ring<int> ring;
  std::deque<int> ref;
  int next = 0;
  for (int round = 0; round < 500; ++round) {
    for (int k = 0; k < 3; ++k) {
      ring.push_back(next);
      ref.push_back(next);
      ++next;
    }
    for (int k = 0; k < 2; ++k) {
      REQUIRE(ring.front() == ref.front());
      REQUIRE(ring.take_front() == ref.front());
      ref.pop_front();
    }
    REQUIRE(ring.size() == ref.size());
    for (size_t i = 0; i < ref.size(); i += 37)
      REQUIRE(ring[i] == ref[i]);
  }
  while (!ref.empty()) {
    REQUIRE(ring.front() == ref.front());
    ring.pop_front();
    ref.pop_front();
  }
  REQUIRE(ring.empty());
}

TEST_CASE("Ring reused after clear starts empty", "[ring]") {
  Ring<int> ring;
  for (int i = 0; i < 20; ++i)
    ring.push_back(i);
  ring.take_front();
  ring.clear();
  REQUIRE(ring.empty());
  REQUIRE(ring.size() == 0);
  ring.push_back(7);
  REQUIRE(ring.front() == 7);
  REQUIRE(ring.size() == 1);
}
