// Seeded distributions (see distribution.hpp).
#include "models/core/distribution.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <utility>

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

QuantileTable::QuantileTable(std::vector<double> levels, std::vector<double> values)
    : levels_(std::move(levels)), values_(std::move(values)) {
  if (levels_.size() < 2 || levels_.size() != values_.size())
    throw std::logic_error("QuantileTable: expected as many levels as values, at least two");
  for (size_t i = 0; i < levels_.size(); ++i) {
    if (!(levels_[i] > 0 && levels_[i] < 1) || !(values_[i] > 0))
      throw std::logic_error("QuantileTable: expected levels in (0, 1) and positive values");
    if (i > 0 && !(levels_[i] > levels_[i - 1] && values_[i] >= values_[i - 1]))
      throw std::logic_error("QuantileTable: expected increasing levels and non-decreasing values");
  }
}

double QuantileTable::quantile(double u) const {
  if (u <= levels_.front()) return values_.front();
  if (u >= levels_.back()) return values_.back();
  const size_t i = static_cast<size_t>(std::upper_bound(levels_.begin(), levels_.end(), u) - levels_.begin());
  if (u == levels_[i - 1]) return values_[i - 1]; // a table point exactly, not through exp(log)
  const double f = (u - levels_[i - 1]) / (levels_[i] - levels_[i - 1]);
  return std::exp(std::log(values_[i - 1]) + f * (std::log(values_[i]) - std::log(values_[i - 1])));
}

TtfbDistribution::TtfbDistribution(LogNormal l, const QuantileTable* shape, double shift)
    : lognormal_(l), shift_(shift) {
  if (shape) shape_.push_back(*shape);
}

TtfbDistribution TtfbDistribution::lognormal(double p50, double p99) {
  return TtfbDistribution(LogNormal::from_p50_p99(p50, p99), nullptr, 0);
}

TtfbDistribution TtfbDistribution::shifted(const QuantileTable& shape, double p50) {
  const double shift = p50 - shape.median();
  if (!(shape.min() + shift >= 0))
    throw std::logic_error("TtfbDistribution: the median is below the table's median minus its minimum");
  return TtfbDistribution(LogNormal::from_p50_p99(1, 1), &shape, shift);
}

double TtfbDistribution::draw(Rng& rng) const {
  return shape_.empty() ? lognormal_.draw(rng) : shift_ + shape_.front().draw(rng);
}

double TtfbDistribution::median() const {
  return shape_.empty() ? lognormal_.median() : shift_ + shape_.front().median();
}

double TtfbDistribution::quantile_99() const {
  return shape_.empty() ? lognormal_.quantile_at_z(kNormalZ99) : shift_ + shape_.front().quantile(0.99);
}

} // namespace exsim
