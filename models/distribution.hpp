// Seeded distributions for the models, computed by the project from models/rng.hpp: the standard
// library's distributions do not promise the same draws across implementations.
//   exsim::LogNormal ttfb = exsim::LogNormal::from_p50_p99(0.030, 0.200);   // seconds
//   double t = ttfb.draw(rng);
#pragma once

#include "models/rng.hpp"

namespace exsim {

// The standard normal quantile at 0.99.
constexpr double kNormalZ99 = 2.3263478740408408;

// exp(mu + sigma * Z) with Z standard normal. sigma = 0 gives the median every time.
class LogNormal {
public:
  // Median p50 and 99th percentile p99 (p99 >= p50 > 0): sigma = ln(p99 / p50) / z(0.99).
  static LogNormal from_p50_p99(double p50, double p99);
  // Mean and coefficient of variation (cv >= 0): sigma^2 = ln(1 + cv^2), mu = ln(mean) - sigma^2 / 2.
  static LogNormal from_mean_cv(double mean, double cv);

  double draw(Rng& rng) const;
  double median() const;
  double mean() const;
  // The quantile at standard-normal score z (z = kNormalZ99 gives the 99th percentile).
  double quantile_at_z(double z) const;
  double mu() const { return mu_; }
  double sigma() const { return sigma_; }

private:
  LogNormal(double mu, double sigma) : mu_(mu), sigma_(sigma) {}
  double mu_;
  double sigma_;
};

} // namespace exsim
