// The engine's network as the models see it: with the Scheduler (scheduler.hpp), the whole port
// between the models and the engine. sim/ implements it on SimGrid (sim/connection.hpp); the unit
// tests' harness with one FIFO per pair of daemons. What it carries, the data-stream Request, is
// the exchange's (models/exchange/rpc.hpp).
//   network.send(from_host, to_host, req);   // later, req->on_arrival runs as an event
#pragma once

#include "models/core/scheduler.hpp"

#include <cstdint>

namespace exsim {

struct Request;

// Carries a request from one daemon to another, spending the route's one-way latency, then moving
// its payload on the connection between the two daemons (one per ordered pair, FIFO); sets
// ready_at and arrived_at, then runs `req->on_arrival` as an event.
class Network {
public:
  virtual ~Network() = default;
  virtual void send(int from_host, int to_host, Request* req) = 0;
};

// Remote object storage as a reader sees it (the remote scan's GETs): the first byte comes after
// `ttfb_s`, then `bytes` move at the rate the network gives them; `done` runs as an event once the
// last byte has arrived. Each reader has its own (the engine knows which host it reads to).
class ObjectStore {
public:
  virtual ~ObjectStore() = default;
  virtual void get(int64_t bytes, double ttfb_s, Callback done) = 0;
};

} // namespace exsim
