// Window policies (see window_policy.hpp).
#include "models/window/window_policy.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace exsim {

namespace {
constexpr WindowPolicyKind kPolicies[] = {WindowPolicyKind::fixed, WindowPolicyKind::bdp, WindowPolicyKind::gradient};
} // namespace

bool parse_window_policy(const std::string& name, WindowPolicyKind& out) {
  for (WindowPolicyKind k : kPolicies)
    if (name == to_string(k)) {
      out = k;
      return true;
    }
  return false;
}

std::vector<std::string> window_policy_names() {
  std::vector<std::string> names;
  for (WindowPolicyKind k : kPolicies)
    names.emplace_back(to_string(k));
  return names;
}

const char* to_string(WindowPolicyKind k) {
  switch (k) {
  case WindowPolicyKind::fixed:
    return "fixed";
  case WindowPolicyKind::bdp:
    return "bdp";
  case WindowPolicyKind::gradient:
    return "gradient";
  }
  return "?";
}

void LimitTrace::record(double now, int limit) {
  max = std::max(max, limit);
  if (!changes.empty() && changes.back().second == limit) return;
  if (!changes.empty() && changes.back().first == now)
    changes.back().second = limit; // several changes at one instant: the last holds
  else
    changes.emplace_back(now, limit);
}

double LimitTrace::mean(double until) const {
  if (changes.empty()) return 0;
  const double t0 = changes.front().first;
  if (until <= t0) return changes.back().second;
  double area = 0;
  for (size_t i = 0; i < changes.size(); ++i) {
    const double from = changes[i].first;
    const double to = i + 1 < changes.size() ? changes[i + 1].first : until;
    area += (std::min(to, until) - from) * changes[i].second;
  }
  return area / (until - t0);
}

WindowPolicy::WindowPolicy(const WindowPolicySpec& spec)
    : spec_(spec), limit_(spec.initial), estimated_limit_(spec.initial) {
  if (spec.initial < 1 || spec.capacity() < spec.initial)
    throw std::logic_error("WindowPolicy: expected 1 <= initial <= max");
  if (!spec.adaptive()) return; // a fixed limit keeps no per-request state (one per channel adds up)
  const size_t slots = static_cast<size_t>(spec.capacity());
  start_s_.assign(slots, 0);
  bytes_.assign(slots, 0);
  in_flight_.assign(slots, 0);
}

void WindowPolicy::set_limit(double now, int limit) {
  limit_ = std::clamp(limit, 1, spec_.capacity());
  trace_.record(now, limit_);
}

void WindowPolicy::on_start(int id, double now, int64_t bytes, int in_flight) {
  if (spec_.kind == WindowPolicyKind::fixed) return; // nothing to learn, nothing to trace
  if (!started_) {
    started_ = true;
    trace_.record(now, limit_);
  }
  const size_t i = static_cast<size_t>(id);
  start_s_.at(i) = now;
  bytes_.at(i) = bytes;
  in_flight_.at(i) = in_flight;
  if (bytes > 0) {
    bytes_total_ += static_cast<double>(bytes);
    ++requests_;
  }
  if (spec_.kind == WindowPolicyKind::bdp && probe_ < 0) {
    if (estimate_bytes_ == 0) estimate_bytes_ = static_cast<double>(spec_.initial) * static_cast<double>(bytes);
    probe_ = id;
    probe_start_s_ = now;
    probe_bytes_ = 0;
  }
}

void WindowPolicy::on_finish(int id, double now) {
  if (spec_.kind == WindowPolicyKind::fixed) return;
  const size_t i = static_cast<size_t>(id);
  if (spec_.kind == WindowPolicyKind::bdp)
    bdp_finish(id, now);
  else
    gradient_finish(now - start_s_.at(i), in_flight_.at(i), now);
}

// The probe measures the delivery rate: the bytes answered while it was out (its own included)
// over its round trip. The product is that rate times the smallest round trip seen (BBR's
// bottleneck rate x round-trip propagation time): a round trip inflated by queueing would count
// the queue as pipe, and the estimate would grow as long as noise lets the rate seem to rise. At
// the probe's answer the estimate may grow, by gRPC's rule: when the product exceeds 2/3 of the
// estimate and the rate rose, to the larger of the product and twice the estimate.
void WindowPolicy::bdp_finish(int id, double now) {
  const size_t i = static_cast<size_t>(id);
  const double rtt = now - start_s_.at(i);
  if (rtt > 0) min_rtt_ = min_rtt_ == 0 ? rtt : std::min(min_rtt_, rtt);
  if (probe_ < 0) return;
  probe_bytes_ += static_cast<double>(bytes_.at(i));
  if (id != probe_) return;
  probe_ = -1;
  const double dt = now - probe_start_s_;
  if (dt <= 0) return;
  const double rate = probe_bytes_ / dt;
  const double product = rate * min_rtt_;
  if (product > WindowPolicyConstants::kBdpGrowThreshold * estimate_bytes_ && rate > rate_estimate_) {
    estimate_bytes_ = std::max(product, WindowPolicyConstants::kBdpGain * estimate_bytes_);
    rate_estimate_ = rate;
  }
  const double mean_bytes = requests_ > 0 ? bytes_total_ / static_cast<double>(requests_) : 0;
  if (mean_bytes > 0) {
    const double requests = std::floor(estimate_bytes_ / mean_bytes + 0.5);
    set_limit(now, static_cast<int>(std::min(requests, static_cast<double>(spec_.capacity()))));
  }
}

void WindowPolicy::gradient_finish(double rtt, int in_flight_at_start, double now) {
  if (rtt <= 0) return;
  min_rtt_ = min_rtt_ == 0 ? rtt : std::min(min_rtt_, rtt);
  // The sender, not the window, is what is slow: nothing to learn about the window.
  if (in_flight_at_start < estimated_limit_ / 2) return;
  const double queue = std::sqrt(estimated_limit_);
  const double gradient = std::clamp(WindowPolicyConstants::kGradientTolerance * min_rtt_ / rtt,
                                     WindowPolicyConstants::kGradientMinGradient, 1.0);
  double next = estimated_limit_ * gradient + queue;
  if (next < estimated_limit_) {
    const double s = WindowPolicyConstants::kGradientSmoothing;
    next = estimated_limit_ * (1 - s) + s * next;
  }
  estimated_limit_ = std::clamp(next, 1.0, static_cast<double>(spec_.capacity()));
  set_limit(now, static_cast<int>(estimated_limit_));
}

} // namespace exsim
