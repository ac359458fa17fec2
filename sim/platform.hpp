// The simulated cluster: one SimGrid host per executor (cores shared by every instance on it),
// a split-duplex NIC link per host, and a loopback link per host for RPCs to the same daemon.
// The network model is set so that an empty RPC's round trip is exactly rtt_us (see README).
//   exsim::configure_engine(engine);
//   exsim::Platform p = exsim::build_platform(engine, scenario.cluster);
#pragma once

#include "sim/scenario.hpp"

#include <simgrid/s4u.hpp>

#include <vector>

namespace exsim {

namespace sg4 = simgrid::s4u;

// One core of a host does this many flops per second: CPU costs are given in ns, 1 flop = 1 ns.
constexpr double kFlopsPerSecond = 1e9;

// CM02 without cross traffic or TCP window cap: a message takes route latency + size / share.
void configure_engine(sg4::Engine& engine);

struct Platform {
  std::vector<sg4::Host*> hosts;
};

Platform build_platform(sg4::Engine& engine, const ClusterSpec& cluster);

} // namespace exsim
