#include "sim/connection.hpp"

#include <fmt/format.h>
#include <simgrid/kernel/Timer.hpp>

namespace exsim {

void Connection::open(sg4::Host* from, sg4::Host* to, int from_index, int to_index) {
  from_ = from;
  to_ = to;
  // A daemon: it idles on its queue forever and must not keep the simulation alive.
  sg4::Actor::create(fmt::format("conn{}-{}", from_index, to_index), from, [this] { run(); })->daemonize();
}

void Connection::send(Request* req, double latency_s) {
  const double now = sg4::Engine::get_clock();
  req->ready_at = now + latency_s;
  queue_.push_back({req->ready_at, req});
  // Every request of a connection has the same latency, so they become ready in queue order. An
  // idle connection was waiting for an empty queue: this request is its next wake-up.
  if (waiting_ && !armed_) arm(queue_.front().ready_s);
}

// One wake-up per wait, at the time the oldest request is ready (a kernel timer: arming never
// lets another actor run).
void Connection::arm(double at_s) {
  armed_ = true;
  simgrid::kernel::timer::Timer::set(at_s, [this] {
    armed_ = false;
    wake_->release();
  });
}

void Connection::run() {
  while (true) {
    if (queue_.empty() || queue_.front().ready_s > sg4::Engine::get_clock()) {
      if (!queue_.empty()) arm(queue_.front().ready_s);
      waiting_ = true;
      wake_->acquire();
      waiting_ = false;
      continue;
    }
    const Queued q = queue_.front();
    queue_.pop_front();
    // The transfer starts now and returns when its last byte has arrived, which is when the
    // next one may start; a request without payload (end of stream) only keeps its place.
    if (q.req->wire_bytes > 0) sg4::Comm::sendto(from_, to_, static_cast<uint64_t>(q.req->wire_bytes));
    q.req->arrived_at = sg4::Engine::get_clock();
    clock_.post_from_actor(q.req->on_arrival);
  }
}

void SimgridNetwork::send(int from, int to, Request* req) {
  const size_t hosts = platform_.hosts.size();
  if (connections_.empty()) connections_.resize(hosts * hosts);
  auto& c = connections_.at(static_cast<size_t>(from) * hosts + static_cast<size_t>(to));
  if (!c) {
    c = std::make_unique<Connection>(clock_);
    c->open(platform_.hosts.at(static_cast<size_t>(from)), platform_.hosts.at(static_cast<size_t>(to)), from, to);
  }
  c->send(req, platform_.one_way_s(from, to));
}

} // namespace exsim
