#include "sim/connection.hpp"

namespace exsim {

void Connection::send(Request* req, double latency_s) {
  req->ready_at = sched_.now() + latency_s;
  queue_.push_back({req->ready_at, req});
  // Every request of a connection has the same latency, so they become ready in queue order. An
  // idle connection waits for its oldest request, which is this one (an idle connection that is
  // not armed has nothing queued): one event, even with no latency (so that a request never
  // reaches its receiver inside its sender's call).
  if (moving_ == nullptr && !armed_) {
    armed_ = true;
    sched_.after(latency_s, Callback::of<&Connection::pump>(this));
  }
}

void Connection::arm(double at_s) {
  armed_ = true;
  sched_.at(at_s, Callback::of<&Connection::pump>(this));
}

// Starts the oldest request if it is ready and the connection is free; a request without payload
// (end of stream) only keeps its place and arrives as soon as its turn comes. Runs as a models'
// event (armed) or in the engine when a transfer has ended, whose clock may be ahead of the
// Scheduler's: the engine's is the time.
void Connection::pump(uint64_t) {
  armed_ = false;
  const double now = clock_.now();
  while (moving_ == nullptr && !queue_.empty()) {
    const Queued q = queue_.front();
    if (q.ready_s > now) {
      arm(q.ready_s);
      return;
    }
    queue_.pop_front();
    if (q.req->wire_bytes > 0) {
      moving_ = q.req;
      net_.start(from_, to_, static_cast<double>(q.req->wire_bytes), this);
      return;
    }
    arrive(q.req);
  }
}

void Connection::arrive(Request* req) {
  req->arrived_at = clock_.now();
  clock_.post_now(req->on_arrival);
}

// The last byte has arrived: the request is at its receiver, and the next one may start.
void Connection::transfer_done() {
  Request* req = moving_;
  moving_ = nullptr;
  arrive(req);
  if (!armed_) pump();
}

ConnectionNetwork::ConnectionNetwork(const Platform& p, NetworkModel model, SimClock& clock, Scheduler& sched)
    : platform_(p), clock_(clock), sched_(sched), transfers_(make_transfer_network(model, p)) {}

void ConnectionNetwork::send(int from, int to, Request* req) {
  const size_t hosts = platform_.hosts.size();
  if (connections_.empty()) connections_.resize(hosts * hosts);
  auto& c = connections_.at(static_cast<size_t>(from) * hosts + static_cast<size_t>(to));
  if (!c) c = std::make_unique<Connection>(*transfers_, clock_, sched_, from, to);
  c->send(req, platform_.routes.one_way_s(from, to));
}

} // namespace exsim
