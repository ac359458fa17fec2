#include "models/core/small_array.hpp"

#include <catch2/catch.hpp>

#include <cstdint>
#include <stdexcept>
#include <utility>

using exsim::SmallArray;

TEST_CASE("SmallArray keeps up to N items inline and more in one block, with the same contents", "[small_array]") {
  // Expectation: every size from 0 to 5 with N = 2 holds `size` copies of the fill value,
  // keeps what is written at each index, is inline exactly when size <= 2, and at() refuses the
  // first index past the end.
  for (std::size_t n = 0; n <= 5; ++n) {
    SmallArray<int64_t, 2> a(n, -1);
    REQUIRE(a.size() == n);
    REQUIRE(a.is_inline() == (n <= 2));
    for (std::size_t i = 0; i < n; ++i)
      REQUIRE(a[i] == -1);
    for (std::size_t i = 0; i < n; ++i)
      a[i] = static_cast<int64_t>(10 * i);
    for (std::size_t i = 0; i < n; ++i)
      REQUIRE(a.at(i) == static_cast<int64_t>(10 * i));
    REQUIRE(a.end() - a.begin() == static_cast<std::ptrdiff_t>(n));
    REQUIRE_THROWS_AS(a.at(n), std::out_of_range);
  }
}

TEST_CASE("SmallArray moved keeps its items, inline or not", "[small_array]") {
  // Expectation: a moved array reads the values written before the move (an inline one is copied,
  // a heap one hands over its block).
  for (std::size_t n : {std::size_t{1}, std::size_t{4}}) {
    SmallArray<int, 2> a(n, 7);
    a[n - 1] = 3;
    SmallArray<int, 2> b(std::move(a));
    REQUIRE(b.size() == n);
    REQUIRE(b[0] == (n == 1 ? 3 : 7));
    REQUIRE(b[n - 1] == 3);
  }
}
