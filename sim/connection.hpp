// The data-stream connection from one daemon to another. KRPC gives data streams a network plane
// of their own: one TCP connection per (source daemon, destination daemon), shared by every
// channel and exchange between the two, and a connection writes its outbound transfers one after
// another in the order they were queued. exsim models exactly that: a FIFO per ordered host pair,
// drained by one actor that moves one request at a time with a SimGrid transfer. Concurrent
// transfers on a NIC are then the connections to other daemons, not the channels, which keeps
// SimGrid's sharing solver small when thousands of channels are open (mt_dop > 0).
//
// The route's one-way latency is spent before the transfer rather than after it: a request joins
// the FIFO one latency after it was sent, and reaches the receiver when its last byte is moved.
// Every connection that shares a link has the same latency (the remote ones a NIC, the local one
// its loopback link), so this shifts all transfers on a link by the same constant and gives the
// same arrival times as latency-after-transfer, with one wake-up less per request.
//   SimgridNetwork net(platform, clock);   // the models' Network port
#pragma once

#include "models/rpc.hpp"
#include "sim/clock.hpp"
#include "sim/platform.hpp"

#include <simgrid/s4u.hpp>

#include <deque>
#include <memory>
#include <vector>

namespace exsim {

class Connection {
public:
  Connection(SimClock& clock) : clock_(clock), wake_(sg4::Semaphore::create(0)) {}
  // Starts the actor that drains the queue.
  void open(sg4::Host* from, sg4::Host* to, int from_index, int to_index);
  // Queues a request, `latency_s` from now. Every request of a connection has the same latency.
  void send(Request* req, double latency_s);

private:
  void run();
  void arm(double at_s);

  struct Queued {
    double ready_s; // sent + route latency: it may leave from then on
    Request* req;
  };
  SimClock& clock_;
  sg4::Host* from_ = nullptr;
  sg4::Host* to_ = nullptr;
  std::deque<Queued> queue_;
  sg4::SemaphorePtr wake_;
  bool waiting_ = false; // the actor is blocked on wake_
  bool armed_ = false;   // a wake-up is scheduled
};

// The models' network on SimGrid: requests travel on per-host-pair connections.
class SimgridNetwork : public Network {
public:
  SimgridNetwork(const Platform& p, SimClock& clock) : platform_(p), clock_(clock) {}
  void send(int from_host, int to_host, Request* req) override;

private:
  const Platform& platform_;
  SimClock& clock_;
  std::vector<std::unique_ptr<Connection>> connections_; // [from * hosts + to], opened on first use
};

} // namespace exsim
