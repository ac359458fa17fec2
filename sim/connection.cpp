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

void Connection::send(ReceiverEndpoint* to, Request* req, double latency_s) {
  queue_.push_back({sg4::Engine::get_clock() + latency_s, to, req});
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
    q.to->deliver(q.req);
  }
}

} // namespace exsim
