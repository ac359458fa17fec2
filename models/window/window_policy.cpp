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

WindowPolicy::WindowPolicy(const WindowPolicySpec& spec) : spec_(spec), limit_(spec.initial) {
  if (spec.initial < 1 || spec.capacity() < spec.initial)
    throw std::logic_error("WindowPolicy: expected 1 <= initial <= max");
  if (!spec.adaptive()) return; // a fixed limit keeps no per-request state (one per channel adds up)
  learn_ = std::make_unique<Learning>();
  learn_->estimated_limit = spec.initial;
  const size_t slots = static_cast<size_t>(spec.capacity());
  learn_->start_s.assign(slots, 0);
  learn_->bytes.assign(slots, 0);
  learn_->in_flight.assign(slots, 0);
}

const LimitTrace& WindowPolicy::trace() const {
  static const LimitTrace kNone;
  return learn_ ? learn_->trace : kNone;
}

void WindowPolicy::set_limit(double now, int limit) {
  limit_ = std::clamp(limit, 1, spec_.capacity());
  learn_->trace.record(now, limit_);
}

void WindowPolicy::on_start(int id, double now, int64_t bytes, int in_flight) {
  if (!learn_) return; // a fixed limit: nothing to learn, nothing to trace
  Learning& l = *learn_;
  if (!l.started) {
    l.started = true;
    l.trace.record(now, limit_);
  }
  const size_t i = static_cast<size_t>(id);
  l.start_s.at(i) = now;
  l.bytes.at(i) = bytes;
  l.in_flight.at(i) = in_flight;
  if (bytes > 0) {
    l.bytes_total += static_cast<double>(bytes);
    ++l.requests;
  }
  if (spec_.kind == WindowPolicyKind::bdp && l.probe < 0) {
    if (l.estimate_bytes == 0)
      l.estimate_bytes = static_cast<double>(spec_.initial) * static_cast<double>(bytes);
    l.probe = id;
    l.probe_start_s = now;
    l.probe_bytes = 0;
  }
}

void WindowPolicy::on_finish(int id, double now) {
  if (!learn_) return;
  const size_t i = static_cast<size_t>(id);
  if (spec_.kind == WindowPolicyKind::bdp)
    bdp_finish(id, now);
  else
    gradient_finish(now - learn_->start_s.at(i), learn_->in_flight.at(i), now);
}

void WindowPolicy::bdp_finish(int id, double now) {
  Learning& l = *learn_;
  const size_t i = static_cast<size_t>(id);
  const double rtt = now - l.start_s.at(i);
  if (rtt > 0) l.min_rtt = l.min_rtt == 0 ? rtt : std::min(l.min_rtt, rtt);
  if (l.probe < 0) return;
  l.probe_bytes += static_cast<double>(l.bytes.at(i));
  if (id != l.probe) return;
  l.probe = -1;
  const double dt = now - l.probe_start_s;
  if (dt <= 0) return;
  const double rate = l.probe_bytes / dt;
  const double product = rate * l.min_rtt;
  if (product > WindowPolicyConstants::kBdpGrowThreshold * l.estimate_bytes && rate > l.rate_estimate) {
    l.estimate_bytes = std::max(product, WindowPolicyConstants::kBdpGain * l.estimate_bytes);
    l.rate_estimate = rate;
  }
  const double mean_bytes = l.requests > 0 ? l.bytes_total / static_cast<double>(l.requests) : 0;
  if (mean_bytes > 0) {
    const double requests = std::floor(l.estimate_bytes / mean_bytes + 0.5);
    set_limit(now, static_cast<int>(std::min(requests, static_cast<double>(spec_.capacity()))));
  }
}

void WindowPolicy::gradient_finish(double rtt, int in_flight_at_start, double now) {
  Learning& l = *learn_;
  if (rtt <= 0) return;
  l.min_rtt = l.min_rtt == 0 ? rtt : std::min(l.min_rtt, rtt);
  // The sender, not the window, is what is slow: nothing to learn about the window.
  if (in_flight_at_start < l.estimated_limit / 2) return;
  const double queue = std::sqrt(l.estimated_limit);
  const double gradient = std::clamp(WindowPolicyConstants::kGradientTolerance * l.min_rtt / rtt,
                                     WindowPolicyConstants::kGradientMinGradient, 1.0);
  double next = l.estimated_limit * gradient + queue;
  if (next < l.estimated_limit) {
    const double s = WindowPolicyConstants::kGradientSmoothing;
    next = l.estimated_limit * (1 - s) + s * next;
  }
  l.estimated_limit = std::clamp(next, 1.0, static_cast<double>(spec_.capacity()));
  set_limit(now, static_cast<int>(l.estimated_limit));
}

} // namespace exsim
