#include "models/rpc.hpp"

#include <algorithm>

namespace exsim {

Path Request::path_at(double until) const {
  Path p = path;
  // Request leg: latency, then the connection (waiting behind other transfers, then this one).
  p.add(PathPart::rtt, ready_at - sent_at);
  p.add(PathPart::bandwidth, arrived_at - ready_at);
  if (until <= arrived_at) return p;
  // At the receiver: deferred while its queue was full, then deserialized.
  const double admitted = std::min(until, admitted_at);
  p.add(PathPart::backpressure, admitted - arrived_at);
  const double enqueued = std::min(until, std::max(admitted, enqueued_at));
  p.add(PathPart::cpu_deserialize, enqueued - admitted);
  if (until <= enqueued) return p;
  // The response leg (waited for by the sender): answered, then back over the route.
  const double answered = std::min(until, std::max(enqueued, responded_at));
  p.add(PathPart::cpu_deserialize, answered - enqueued);
  p.add(PathPart::rtt, until - answered);
  return p;
}

RequestPool::~RequestPool() {
  for (Request* r : all_)
    delete r;
}

Request* RequestPool::get() {
  if (free_.empty()) {
    all_.push_back(new Request);
    return all_.back();
  }
  Request* r = free_.back();
  free_.pop_back();
  *r = Request{};
  return r;
}

void RequestPool::put(Request* r) { free_.push_back(r); }

} // namespace exsim
