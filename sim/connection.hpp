// The data-stream connection from one daemon to another. KRPC gives data streams a network plane
// of their own: one TCP connection per (source daemon, destination daemon), shared by every
// channel and exchange between the two, and a connection writes its outbound transfers one after
// another in the order they were queued. exsim models exactly that: a FIFO per ordered host pair,
// drained by one actor that moves one request at a time. Concurrent transfers on a NIC are then
// the connections to other daemons, not the channels, which is also what keeps SimGrid's sharing
// solver small when thousands of channels are open (mt_dop > 0).
//
// The route's one-way latency is spent before the transfer rather than after it: a request joins
// the FIFO one latency after it was sent, and reaches the receiver when its last byte is moved.
// Every connection that shares a link has the same latency (the remote ones a NIC, the local one
// its loopback link), so this shifts all transfers on a link by the same constant and gives the
// same arrival times as latency-after-transfer, with one wake-up less per request.
//   Connection& c = sim.connection(from_host, to_host);
//   c.send(receiver, request, one_way_s); // returns at once
#pragma once

#include "sim/exchange.hpp"

#include <simgrid/s4u.hpp>

#include <deque>

namespace exsim {

class Connection {
public:
  Connection() : wake_(sg4::Semaphore::create(0)) {}
  // Starts the actor that drains the queue (a blocking call: other actors may run meanwhile).
  void open(sg4::Host* from, sg4::Host* to, int from_index, int to_index);
  // Queues a request for the receiver behind `to`, `latency_s` from now; ownership passes to the
  // receiver. Every request of a connection must use the same latency (FIFO order).
  void send(ReceiverEndpoint* to, Request* req, double latency_s);

private:
  void run();
  void arm(double at_s);

  struct Queued {
    double ready_s; // sent + route latency: it may leave from then on
    ReceiverEndpoint* to;
    Request* req;
  };
  sg4::Host* from_ = nullptr;
  sg4::Host* to_ = nullptr;
  std::deque<Queued> queue_;
  sg4::SemaphorePtr wake_;
  bool waiting_ = false; // the actor is blocked on wake_
  bool armed_ = false;   // a wake-up is scheduled
};

} // namespace exsim
