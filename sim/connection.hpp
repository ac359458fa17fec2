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
// same arrival times as latency-after-transfer, with one event less per request.
//
// A connection is driven by its events (a request becoming ready, a transfer ending): it is not an
// actor and never blocks. Requests reach the models as events of their Scheduler.
//   ConnectionNetwork net(platform, NetworkModel::exsim, clock, sched);   // the models' Network port
//   net.send(from_host, to_host, req);               // req->on_arrival runs once it has arrived
#pragma once

#include "models/core/network_port.hpp"
#include "models/core/ring.hpp"
#include "models/core/scheduler.hpp"
#include "models/exchange/rpc.hpp"
#include "sim/clock.hpp"
#include "sim/network.hpp"
#include "sim/platform.hpp"

#include <memory>
#include <vector>

namespace exsim {

class Connection : private TransferSink {
public:
  Connection(TransferNetwork& net, SimClock& clock, Scheduler& sched, int from_host, int to_host)
      : net_(net), clock_(clock), sched_(sched), from_(from_host), to_(to_host) {}
  Connection(const Connection&) = delete;
  Connection& operator=(const Connection&) = delete;

  // Queues a request, `latency_s` from now (a models' event: the Scheduler's clock is the
  // engine's). Every request of a connection must use the same latency (FIFO order). The request
  // arrives later, never from inside this call.
  void send(Request* req, double latency_s);

private:
  void transfer_done() override;
  void pump(uint64_t = 0);
  void arm(double at_s);
  void arrive(Request* req);

  struct Queued {
    double ready_s; // sent + route latency: it may leave from then on
    Request* req;
  };
  TransferNetwork& net_;
  SimClock& clock_;
  Scheduler& sched_;
  int from_;
  int to_;
  Ring<Queued> queue_;
  Request* moving_ = nullptr; // the request whose bytes are on the network
  bool armed_ = false;        // a wake-up is scheduled for the oldest request
};

// The models' network on SimGrid: requests travel on per-host-pair connections over the
// transfer network the scenario chose (cluster.network_model).
class ConnectionNetwork : public Network {
public:
  ConnectionNetwork(const Platform& p, NetworkModel model, SimClock& clock, Scheduler& sched);
  void send(int from_host, int to_host, Request* req) override;
  TransferNetwork& transfers() { return *transfers_; }

private:
  const Platform& platform_;
  SimClock& clock_;
  Scheduler& sched_;
  std::unique_ptr<TransferNetwork> transfers_;
  std::vector<std::unique_ptr<Connection>> connections_; // [from * hosts + to], opened on first use
};

} // namespace exsim
