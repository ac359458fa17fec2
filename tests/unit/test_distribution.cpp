// The project's seeded distributions: parameters from percentiles or moments, draws that match.
#include "models/distribution.hpp"

#include <catch2/catch.hpp>

#include <algorithm>
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
