// The simulated cluster: one SimGrid host per `daemons_per_host` executor daemons (its cores
// shared by every instance on it), a split-duplex NIC link per host, and a loopback link per host
// for RPCs between daemons on it or to the same daemon.
// Links carry bandwidth only; the route latency (half the round trip each way) is added by the
// actors (a request waits it out before its connection transfers it, a response is due that
// long after it is sent), so that a message costs latency + size / bandwidth share while
// SimGrid's sharing solver only sees messages that are actually moving bytes (docs/model.md).
//   exsim::configure_engine(engine);
//   exsim::Platform p = exsim::build_platform(scenario.cluster);
#pragma once

#include "models/config/settings.hpp"
#include "models/network/routes.hpp"

#include <simgrid/s4u.hpp>

#include <memory>
#include <vector>

namespace exsim {

namespace sg4 = simgrid::s4u;

// One core of a host does this many flops per second: CPU costs are given in ns, 1 flop = 1 ns.
constexpr double kFlopsPerSecond = 1e9;

// CM02 without cross traffic or TCP window cap: a message takes route latency + size / share.
void configure_engine(sg4::Engine& engine);

// The process's one SimGrid engine, configured (SimGrid allows one per process; its logging is
// kept to real problems; under ASan its contexts are threads).
std::unique_ptr<sg4::Engine> make_engine();

struct Platform {
  std::vector<sg4::Host*> hosts;   // each daemon's host (daemons on one host share it)
  int host_count = 0;              // distinct hosts
  Routes routes;                   // latencies, the same the models use for responses
  double nic_bytes_per_s = 0;      // each NIC link, each way
  double loopback_bytes_per_s = 0; // each loopback link
};

Platform build_platform(const ClusterSpec& cluster);

} // namespace exsim
