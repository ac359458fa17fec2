// The data-stream connection from one daemon to another. KRPC gives data streams a network plane
// of their own: one TCP connection per (source daemon, destination daemon), shared by every
// channel and exchange between the two, and a connection writes its outbound transfers one after
// another in the order they were queued. exsim models exactly that: a FIFO per ordered host pair
// that moves one request at a time over the network (sim/network.hpp). Concurrent transfers on a
// NIC are then the connections to other daemons, not the channels, which also bounds the flows
// the bandwidth-sharing solver sees by hosts squared when thousands of channels are open.
//
// The route's one-way latency is spent before the transfer rather than after it: a request joins
// the FIFO one latency after it was sent, and reaches the receiver when its last byte is moved.
// Every connection that shares a link has the same latency (the remote ones a NIC, the local one
// its loopback link), so this shifts all transfers on a link by the same constant and gives the
// same arrival times as latency-after-transfer, with one wake-up less per request.
//
// A connection is driven by its events (a request becoming ready, a transfer ending), each
// handled in the simulation kernel: it is not an actor and never blocks.
//   Connection& c = sim.connection(from_host, to_host);
//   c.send(receiver, request, one_way_s); // returns at once
#pragma once

#include "sim/exchange.hpp"
#include "sim/network.hpp"

#include <deque>

namespace exsim {

class Connection : private TransferSink {
public:
  Connection(Network& network, int from_host, int to_host) : net_(network), from_(from_host), to_(to_host) {}
  Connection(const Connection&) = delete;
  Connection& operator=(const Connection&) = delete;

  // Queues a request for the receiver behind `to`, `latency_s` from now; ownership passes to the
  // receiver. Every request of a connection must use the same latency (FIFO order). The request
  // is delivered later, never from inside this call.
  void send(ReceiverEndpoint* to, Request* req, double latency_s);

private:
  void transfer_done() override;
  void pump();
  void arm(double at_s);

  struct Queued {
    double ready_s; // sent + route latency: it may leave from then on
    ReceiverEndpoint* to;
    Request* req;
  };
  Network& net_;
  int from_;
  int to_;
  std::deque<Queued> queue_;
  Queued moving_{0, nullptr, nullptr}; // the request whose bytes are on the network
  bool busy_ = false;                  // a transfer is under way
  bool armed_ = false;                 // a wake-up is scheduled for the oldest request
};

} // namespace exsim
