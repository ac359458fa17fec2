#include "sim/connection.hpp"

#include <simgrid/kernel/Timer.hpp>

namespace exsim {

void Connection::send(ReceiverEndpoint* to, Request* req, double latency_s) {
  queue_.push_back({sg4::Engine::get_clock() + latency_s, to, req});
  // Every request of a connection has the same latency, so they become ready in queue order. An
  // idle connection waits for its oldest request: one wake-up, even with no latency (so that a
  // request never reaches its receiver inside its sender's call).
  if (!busy_ && !armed_) arm(queue_.front().ready_s);
}

// A kernel timer: arming never lets another actor run.
void Connection::arm(double at_s) {
  armed_ = true;
  simgrid::kernel::timer::Timer::set(at_s, [this] {
    armed_ = false;
    pump();
  });
}

// Starts the oldest request if it is ready and the connection is free; a request without payload
// (end of stream) only keeps its place and is delivered as soon as its turn comes.
void Connection::pump() {
  while (!busy_ && !queue_.empty()) {
    const Queued q = queue_.front();
    if (q.ready_s > sg4::Engine::get_clock()) {
      if (!armed_) arm(q.ready_s);
      return;
    }
    queue_.pop_front();
    if (q.req->wire_bytes > 0) {
      moving_ = q;
      busy_ = true;
      net_.start(from_, to_, static_cast<double>(q.req->wire_bytes), this);
      return;
    }
    q.to->deliver(q.req);
  }
}

// The last byte has arrived: the request is at its receiver, and the next one may start.
void Connection::transfer_done() {
  busy_ = false;
  const Queued q = moving_;
  moving_ = {0, nullptr, nullptr};
  q.to->deliver(q.req);
  pump();
}

} // namespace exsim
