// Deterministic random streams for the models: the same seed gives the same draws on
// every platform and compiler, which the standard library's distributions do not promise.
//   exsim::Rng rng(exsim::Rng::stream_seed(scenario_seed, sender_index));
//   double u = rng.uniform();   // [0, 1)
#pragma once

#include <cmath>
#include <cstdint>

namespace exsim {

class Rng {
public:
  explicit Rng(uint64_t seed) {
    uint64_t x = seed;
    for (auto& s : s_)
      s = splitmix64(x);
  }

  // Seed of stream `stream` derived from a scenario seed, so that streams never overlap in practice.
  static uint64_t stream_seed(uint64_t seed, uint64_t stream) {
    uint64_t x = seed ^ (0x9E3779B97F4A7C15ULL * (stream + 1));
    return splitmix64(x);
  }

  // xoshiro256**
  uint64_t next() {
    const uint64_t result = rotl(s_[1] * 5, 7) * 9;
    const uint64_t t = s_[1] << 17;
    s_[2] ^= s_[0];
    s_[3] ^= s_[1];
    s_[1] ^= s_[2];
    s_[0] ^= s_[3];
    s_[2] ^= t;
    s_[3] = rotl(s_[3], 45);
    return result;
  }

  double uniform() { return static_cast<double>(next() >> 11) * 0x1.0p-53; }

  // Integer in [0, n).
  uint64_t below(uint64_t n) { return n == 0 ? 0 : next() % n; }

  // Standard normal draw (Box-Muller, one value per call for simplicity).
  double normal() {
    double u1 = uniform();
    if (u1 < 1e-300) u1 = 1e-300;
    const double u2 = uniform();
    return std::sqrt(-2.0 * std::log(u1)) * std::cos(2.0 * M_PI * u2);
  }

private:
  static uint64_t rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }
  static uint64_t splitmix64(uint64_t& x) {
    uint64_t z = (x += 0x9E3779B97F4A7C15ULL);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
  }
  uint64_t s_[4];
};

} // namespace exsim
