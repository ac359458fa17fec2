// Seeded distributions (see distribution.hpp).
#include "models/distribution.hpp"

#include <cmath>
#include <stdexcept>

namespace exsim {

LogNormal LogNormal::from_p50_p99(double p50, double p99) {
  if (!(p50 > 0) || !(p99 >= p50)) throw std::logic_error("LogNormal: expected p99 >= p50 > 0");
  return LogNormal(std::log(p50), std::log(p99 / p50) / kNormalZ99);
}

LogNormal LogNormal::from_mean_cv(double mean, double cv) {
  if (!(mean > 0) || !(cv >= 0)) throw std::logic_error("LogNormal: expected mean > 0 and cv >= 0");
  const double s2 = std::log1p(cv * cv);
  return LogNormal(std::log(mean) - s2 / 2, std::sqrt(s2));
}

double LogNormal::draw(Rng& rng) const {
  if (sigma_ == 0) return std::exp(mu_); // no draw: a constant stays independent of the stream
  return std::exp(mu_ + sigma_ * rng.normal());
}

double LogNormal::median() const {
  return std::exp(mu_);
}
double LogNormal::mean() const {
  return std::exp(mu_ + sigma_ * sigma_ / 2);
}
double LogNormal::quantile_at_z(double z) const {
  return std::exp(mu_ + sigma_ * z);
}

} // namespace exsim
