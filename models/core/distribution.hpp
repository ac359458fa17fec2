// Seeded distributions for the models, computed by the project from models/core/rng.hpp: the standard
// library's distributions do not promise the same draws across implementations.
//   exsim::LogNormal ttfb = exsim::LogNormal::from_p50_p99(0.030, 0.200);   // seconds
//   double t = ttfb.draw(rng);
#pragma once

#include "models/core/rng.hpp"

#include <vector>

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

// A distribution known by some of its quantiles, as a benchmark publishes them: the value x_i at
// probability q_i (q increasing in (0, 1), x positive and non-decreasing). Drawn by inversion,
// ln x linear in q between two points; a draw below q_0 gives x_0 and above the last level the
// last value (the table says nothing beyond its ends, and no draw goes past them).
//   exsim::QuantileTable t({0.25, 0.5, 0.99}, {0.009, 0.010, 0.075});   // seconds
//   double x = t.draw(rng);                                             // one uniform per draw
class QuantileTable {
public:
  QuantileTable(std::vector<double> levels, std::vector<double> values); // std::logic_error if malformed

  double quantile(double u) const;
  double draw(Rng& rng) const { return quantile(rng.uniform()); }
  double median() const { return quantile(0.5); }
  double min() const { return values_.front(); }
  double max() const { return values_.back(); }

private:
  std::vector<double> levels_;
  std::vector<double> values_;
};

// A time to first byte: a lognormal from its median and 99th percentile, or the shape of a
// quantile table moved so that its median is the given one (the difference added to every draw:
// a fixed delay in front of a service whose own spread the table gives).
class TtfbDistribution {
public:
  static TtfbDistribution lognormal(double p50, double p99);
  // std::logic_error if a draw could be negative (p50 below the table's median minus its minimum).
  static TtfbDistribution shifted(const QuantileTable& shape, double p50);

  double draw(Rng& rng) const;
  double median() const;
  double quantile_99() const;

private:
  TtfbDistribution(LogNormal l, const QuantileTable* shape, double shift);
  LogNormal lognormal_;
  std::vector<QuantileTable> shape_; // none or one
  double shift_ = 0;
};

} // namespace exsim
