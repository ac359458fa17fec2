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

void Connection::send(ReceiverInbox* to, Request* req, double latency_s) {
  queue_.emplace_back(to, req);
  // With one latency per connection the timers fire in sending order, so each firing makes the
  // oldest queued request ready: the semaphore counts ready requests.
  if (latency_s <= 0)
    queued_->release();
  else
    simgrid::kernel::timer::Timer::set(sg4::Engine::get_clock() + latency_s,
                                       [sem = queued_] { sem->release(); });
}

void Connection::run() {
  while (true) {
    queued_->acquire();
    auto [to, req] = queue_.front();
    queue_.pop_front();
    // The transfer starts now and returns when its last byte has arrived, which is when the
    // next one may start; a request without payload (end of stream) only keeps its place.
    if (req->wire_bytes > 0) sg4::Comm::sendto(from_, to_, static_cast<uint64_t>(req->wire_bytes));
    to->push({ReceiverEvent::Kind::request, req});
  }
}

} // namespace exsim
