#include "sim/connection.hpp"

#include <fmt/format.h>
#include <simgrid/Exception.hpp>
#include <simgrid/kernel/Timer.hpp>

namespace exsim {

void Connection::open(sg4::Host* from, int from_index, int to_index) {
  // A daemon: it idles on its queue forever and must not keep the simulation alive.
  sg4::Actor::create(fmt::format("conn{}-{}", from_index, to_index), from, [this] { run(); })->daemonize();
}

void Connection::send(sg4::Mailbox* to, Request* req, double latency_s) {
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
    try {
      // The receiver's mailbox has a permanent receiver: the transfer starts now and put returns
      // when the last byte has arrived, which is when the next transfer may start.
      to->put(req, static_cast<uint64_t>(req->wire_bytes));
    } catch (const simgrid::Exception&) {
      // The receiver's actor is gone (its exchange ended): nobody is left to answer.
      delete req;
    }
  }
}

} // namespace exsim
