#include "models/exchange/partitioner.hpp"

#include "models/core/round.hpp"
#include <algorithm>
#include <cmath>
#include <numeric>
#include <stdexcept>

namespace exsim {

int64_t binomial_draw(Rng& rng, int64_t n, double p) {
  if (n <= 0 || p <= 0) return 0;
  if (p >= 1) return n;
  if (n <= 16) {
    int64_t k = 0;
    for (int64_t i = 0; i < n; ++i)
      k += rng.uniform() < p ? 1 : 0;
    return k;
  }
  const double mean = static_cast<double>(n) * p;
  if (mean < 30) {
    // Poisson(mean) by inverse CDF; accurate for small p, clamped to n.
    const double u = rng.uniform();
    double term = std::exp(-mean);
    double cdf = term;
    int64_t k = 0;
    while (cdf < u && k < n) {
      ++k;
      term *= mean / static_cast<double>(k);
      cdf += term;
    }
    return k;
  }
  const double sd = std::sqrt(mean * (1 - p));
  const auto k = round_to_int64(mean + sd * rng.normal());
  return std::clamp<int64_t>(k, 0, n);
}

void BatchSplit::reset(size_t channels) {
  if (rows.size() != channels) {
    rows.assign(channels, 0);
    touched.clear();
    return;
  }
  for (int c : touched)
    rows[static_cast<size_t>(c)] = 0;
  touched.clear();
}

RowSplitter::RowSplitter(std::vector<double> weights, int fanout, uint64_t seed, int64_t batch_rows)
    : weights_(std::move(weights)), fanout_(std::max(1, fanout)), rng_(seed) {
  const double sum = std::accumulate(weights_.begin(), weights_.end(), 0.0);
  if (weights_.empty() || !(sum > 0))
    throw std::invalid_argument("RowSplitter: weights must be non-empty and positive");
  for (double& w : weights_)
    w /= sum;
  fanout_ = std::min<int>(fanout_, static_cast<int>(weights_.size()));
  const auto n = static_cast<int64_t>(weights_.size());
  row_by_row_ = n > 1 && batch_rows > 0 && n * kRowsPerChannelForChain > batch_rows;
  if (!row_by_row_) return;
  // Vose's construction: scaled weights below 1 are topped up by one channel above 1.
  std::vector<double> keep(weights_.size());
  alias_.resize(weights_.size());
  std::vector<int> small, large;
  for (size_t i = 0; i < weights_.size(); ++i) {
    keep[i] = weights_[i] * static_cast<double>(n);
    alias_[i] = static_cast<int>(i);
    (keep[i] < 1 ? small : large).push_back(static_cast<int>(i));
  }
  while (!small.empty() && !large.empty()) {
    const auto s = static_cast<size_t>(small.back()), l = static_cast<size_t>(large.back());
    small.pop_back();
    alias_[s] = static_cast<int>(l);
    keep[l] -= 1 - keep[s];
    if (keep[l] < 1) {
      large.pop_back();
      small.push_back(static_cast<int>(l));
    }
  }
  for (int i : small) // left over by rounding: keep themselves
    keep[static_cast<size_t>(i)] = 1;
  for (int i : large)
    keep[static_cast<size_t>(i)] = 1;
  keep32_.resize(keep.size());
  for (size_t i = 0; i < keep.size(); ++i) // 1 gives 2^32: always kept
    keep32_[i] = static_cast<uint64_t>(std::llround(keep[i] * 4294967296.0));
}

void RowSplitter::split(int64_t rows, BatchSplit& out) {
  out.reset(weights_.size());
  if (rows <= 0) return;
  if (row_by_row_)
    split_rows(rows, out);
  else
    split_chain(rows, out);
}

// Each of the `fanout` copies of a row goes to a channel drawn by weight: a multinomial, drawn
// as a chain of conditional binomials so that the counts add up exactly.
void RowSplitter::split_chain(int64_t rows, BatchSplit& out) {
  const size_t n = weights_.size();
  for (int copy = 0; copy < fanout_; ++copy) {
    int64_t remaining = rows;
    double weight_left = 1.0;
    for (size_t c = 0; c + 1 < n && remaining > 0; ++c) {
      const double p = weight_left > 0 ? std::min(1.0, weights_[c] / weight_left) : 1.0;
      const int64_t k = binomial_draw(rng_, remaining, p);
      out.add(static_cast<int>(c), k);
      remaining -= k;
      weight_left -= weights_[c];
    }
    out.add(static_cast<int>(n - 1), remaining);
  }
}

// The same multinomial, one draw per copy of a row: the high 32 bits of a random word pick a
// column of the alias table (multiply-shift: a bias below channels / 2^32), the low 32 bits the
// column's channel or its alias.
void RowSplitter::split_rows(int64_t rows, BatchSplit& out) {
  const uint64_t n = weights_.size();
  const int64_t draws = rows * fanout_;
  for (int64_t i = 0; i < draws; ++i) {
    const uint64_t x = rng_.next();
    const size_t col = static_cast<size_t>(((x >> 32) * n) >> 32);
    out.add(static_cast<int>((x & 0xffffffffULL) < keep32_[col] ? col : alias_[col]), 1);
  }
}

RoundRobin::RoundRobin(int channels, uint64_t seed) : order_(static_cast<size_t>(std::max(1, channels))) {
  std::iota(order_.begin(), order_.end(), 0);
  Rng rng(seed);
  for (size_t i = order_.size(); i > 1; --i)
    std::swap(order_[i - 1], order_[rng.below(i)]);
}

int RoundRobin::next() {
  const int c = order_[pos_];
  pos_ = (pos_ + 1) % order_.size();
  return c;
}

void collector_fill_events(const std::vector<int64_t>& fill, const BatchSplit& incoming, int64_t capacity,
                           std::vector<FillEvent>& events) {
  events.clear();
  for (int c : incoming.touched) {
    const int64_t n = incoming.rows[static_cast<size_t>(c)];
    // The k-th fill happens when the (capacity*k - fill)-th of this channel's n rows arrives.
    for (int64_t need = capacity - fill[static_cast<size_t>(c)]; need <= n; need += capacity)
      events.push_back({static_cast<double>(need) / static_cast<double>(n), c});
  }
  std::sort(events.begin(), events.end(), [](const FillEvent& a, const FillEvent& b) {
    return a.position != b.position ? a.position < b.position : a.channel < b.channel;
  });
}

} // namespace exsim
