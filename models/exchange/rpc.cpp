#include "models/exchange/rpc.hpp"

#include <algorithm>

namespace exsim {

Path Request::path_at(double until) const {
  Path p = path ? *path : Path{};
  // The legs of the journey, each ending when the next begins; only what lies after path_time
  // and before `until` counts.
  const double dispatched = std::max(arrived_at, dispatched_at);
  const double admitted = std::max(dispatched, admitted_at);
  const double enqueued = std::max(admitted, enqueued_at);
  const double answered = std::max(enqueued, responded_at);
  const struct {
    double end;
    PathPart part;
  } legs[] = {{ready_at, PathPart::rtt},              // the route's latency
              {arrived_at, PathPart::bandwidth},      // behind other transfers, then its own
              {dispatched, PathPart::rtt},            // handed to a service thread (rpc_dispatch_us)
              {admitted, PathPart::backpressure},     // deferred by a full receiver
              {enqueued, PathPart::cpu_deserialize},  // waiting for a service thread, deserialized
              {answered, PathPart::cpu_deserialize},
              {until, PathPart::rtt}};                // the response's way back
  double at = path_time;
  for (const auto& leg : legs) {
    const double end = std::min(leg.end, until);
    if (end > at) {
      p.add(leg.part, end - at);
      at = end;
    }
    if (at >= until) break;
  }
  return p;
}

Request* RequestPool::get() {
  if (free_.empty()) {
    blocks_.emplace_back(new Request[kBlock]); // each made by its initialisers, without zeroing first
    for (std::size_t i = kBlock; i-- > 0;) // the block's first request is handed out first
      free_.push_back(&blocks_.back()[i]);
  }
  Request* r = free_.back();
  free_.pop_back();
  *r = Request{};
  return r;
}

void RequestPool::put(Request* r) {
  r->path.reset(); // an idle request holds no path
  free_.push_back(r);
}

} // namespace exsim
