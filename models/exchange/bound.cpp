#include "models/exchange/bound.hpp"

namespace exsim {

std::string to_string(Bound b) {
  switch (b) {
  case Bound::rpc_window:
    return "rpc_window";
  case Bound::bandwidth:
    return "bandwidth";
  case Bound::sender_cpu:
    return "sender_cpu";
  case Bound::receiver_cpu:
    return "receiver_cpu";
  case Bound::backpressure:
    return "backpressure";
  case Bound::none:
    return "none";
  }
  return "?";
}

Bound classify_bound(const BoundFigures& f) {
  constexpr double kSignificant = 0.2;
  if (f.stopped_without_data) return Bound::none;
  const double d = f.duration_s > 0 ? f.duration_s : 1e-12;
  if (f.has_deferred_s / d >= kSignificant) return Bound::backpressure;
  if (f.slowest_blocked_s / d >= kSignificant)
    return f.mean_rpc_network_s > 1.5 * f.rtt_s ? Bound::bandwidth : Bound::rpc_window;
  return f.receiver_cpu_s > f.slowest_cpu_s ? Bound::receiver_cpu : Bound::sender_cpu;
}

} // namespace exsim
