// std::llround without the library call: the nearest integer, halves away from zero, exactly as
// std::llround for every |x| < 2^63 (the cast truncates towards zero and x - trunc(x) is exact).
// Row counts are rounded once per batch and operator, where the call showed in profiles.
//   int64_t rows = exsim::round_to_int64(2.5);   // 3
#pragma once

#include <cstdint>

namespace exsim {

inline int64_t round_to_int64(double x) {
  int64_t i = static_cast<int64_t>(x);
  const double frac = x - static_cast<double>(i);
  if (frac >= 0.5)
    ++i;
  else if (frac <= -0.5)
    --i;
  return i;
}

} // namespace exsim
