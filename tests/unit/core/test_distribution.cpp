// The project's seeded distributions: parameters from percentiles or moments, draws that match.
#include "models/core/distribution.hpp"
#include "models/core/round.hpp"

#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <vector>

using namespace exsim;

TEST_CASE("a lognormal from p50 and p99 draws those percentiles", "[unit][distribution]") {
  const LogNormal d = LogNormal::from_p50_p99(0.030, 0.200);
  CHECK(d.median() == Approx(0.030));
  CHECK(d.quantile_at_z(kNormalZ99) == Approx(0.200));
  Rng rng(7);
  std::vector<double> x(200000);
  for (double& v : x)
    v = d.draw(rng);
  std::sort(x.begin(), x.end());
  const double p50 = x[x.size() / 2], p99 = x[x.size() * 99 / 100];
  std::printf(
      "lognormal(p50 30 ms, p99 200 ms): expected p50 0.030000, drawn %.6f; p99 0.200000, drawn %.6f\n", p50,
      p99);
  CHECK(p50 == Approx(0.030).epsilon(0.01));
  CHECK(p99 == Approx(0.200).epsilon(0.03));
}

TEST_CASE("a lognormal from mean and cv, and constants at cv 0 or p99 = p50", "[unit][distribution]") {
  const LogNormal d = LogNormal::from_mean_cv(10, 0.5);
  CHECK(d.mean() == Approx(10));
  Rng rng(3);
  double sum = 0;
  const int n = 200000;
  for (int i = 0; i < n; ++i)
    sum += d.draw(rng);
  CHECK(sum / n == Approx(10).epsilon(0.01));
  Rng a(1);
  CHECK(LogNormal::from_mean_cv(5, 0).draw(a) == Approx(5));
  CHECK(LogNormal::from_p50_p99(0.1, 0.1).draw(a) == Approx(0.1));
  CHECK_THROWS_AS(LogNormal::from_p50_p99(0.2, 0.1), std::logic_error);
}

TEST_CASE("a quantile table draws its quantiles and nothing past its ends", "[unit][distribution]") {
  // s3-benchmark's 8 MB GETs (ms): min, p25, p50, p75, p90, p99, max of 500 samples.
  const QuantileTable t({0.002, 0.25, 0.5, 0.75, 0.9, 0.99, 0.998}, {7, 9, 10, 12, 17, 75, 230});
  CHECK(t.median() == Approx(10));
  CHECK(t.quantile(0.99) == Approx(75));
  CHECK(t.quantile(0.0) == Approx(7));
  CHECK(t.quantile(0.9999) == Approx(230));
  // ln x is linear in q between two points: halfway from p90 to p99 is their geometric mean.
  CHECK(t.quantile(0.945) == Approx(std::sqrt(17.0 * 75.0)));
  Rng rng(11);
  std::vector<double> x(200000);
  for (double& v : x)
    v = t.draw(rng);
  std::sort(x.begin(), x.end());
  const double p50 = x[x.size() / 2], p90 = x[x.size() * 9 / 10], p99 = x[x.size() * 99 / 100];
  std::printf("quantile table: expected p50 10, p90 17, p99 75; drawn %.3f, %.3f, %.3f\n", p50, p90, p99);
  CHECK(p50 == Approx(10).epsilon(0.01));
  CHECK(p90 == Approx(17).epsilon(0.02));
  // The tail is steep (75 to 230 ms over 0.8% of the draws): its fraction, not its value, is sharp.
  const double below_p99 = static_cast<double>(std::upper_bound(x.begin(), x.end(), 75.0) - x.begin()) / x.size();
  CHECK(below_p99 == Approx(0.99).epsilon(0.001));
  CHECK(x.front() >= 7);
  CHECK(x.back() <= 230);
  CHECK_THROWS_AS(QuantileTable({0.5}, {1}), std::logic_error);
  CHECK_THROWS_AS(QuantileTable({0.5, 0.4}, {1, 2}), std::logic_error);
  CHECK_THROWS_AS(QuantileTable({0.4, 0.5}, {2, 1}), std::logic_error);
  CHECK_THROWS_AS(QuantileTable({0.4, 1.0}, {1, 2}), std::logic_error);
}

TEST_CASE("a time to first byte moved to a median keeps the table's spread in absolute time",
          "[unit][distribution]") {
  const QuantileTable t({0.002, 0.5, 0.99, 0.998}, {0.007, 0.010, 0.075, 0.230});
  const TtfbDistribution d = TtfbDistribution::shifted(t, 0.790);
  CHECK(d.median() == Approx(0.790));
  CHECK(d.quantile_99() == Approx(0.855)); // 0.790 + (0.075 - 0.010): moved, not scaled
  Rng rng(5);
  for (int i = 0; i < 1000; ++i) {
    const double x = d.draw(rng);
    CHECK(x >= 0.787 - 1e-12);
    CHECK(x <= 1.010 + 1e-12);
  }
  // The table's own median leaves it as it is; below its median minus its minimum a draw could be negative.
  CHECK(TtfbDistribution::shifted(t, 0.010).median() == Approx(0.010));
  CHECK_NOTHROW(TtfbDistribution::shifted(t, 0.003));
  CHECK_THROWS_AS(TtfbDistribution::shifted(t, 0.002), std::logic_error);
  const TtfbDistribution l = TtfbDistribution::lognormal(0.030, 0.200);
  CHECK(l.median() == Approx(0.030));
  CHECK(l.quantile_99() == Approx(0.200));
}

TEST_CASE("round_to_int64 is std::llround", "[unit][distribution]") {
  const double cases[] = {0.0, -0.0, 0.5, -0.5, 1.5, -1.5, 2.5, -2.5, 0.49999999999999994, -0.49999999999999994,
                          4503599627370495.5, -4503599627370495.5, 4503599627370497.0, 9007199254740993.0,
                          1e18, -1e18, 1234.4999, 1234.5001, 7.0, -7.0};
  for (double x : cases)
    CHECK(round_to_int64(x) == std::llround(x));
  Rng rng(11);
  for (int i = 0; i < 100000; ++i) {
    const double x = (rng.uniform() - 0.5) * std::pow(2.0, static_cast<double>(i % 60));
    CHECK(round_to_int64(x) == std::llround(x));
    const double h = std::floor(x) + 0.5; // halves
    CHECK(round_to_int64(h) == std::llround(h));
  }
}
