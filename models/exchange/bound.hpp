// Which resource bounds an exchange, read from its simulated counters, so that a report can say
// why a setting helps: the K x batch / RTT window, NIC bandwidth, sender CPU, receiver CPU,
// or receiver backpressure; none for an exchange stopped before it sent anything.
//   exsim::Bound b = exsim::classify_bound(figures);
#pragma once

#include <string>

namespace exsim {

enum class Bound { rpc_window, bandwidth, sender_cpu, receiver_cpu, backpressure, none };

std::string to_string(Bound b);

struct BoundFigures {
  double duration_s = 0;             // exchange duration
  double slowest_blocked_s = 0;      // InactiveTotalTime of the slowest sender
  double slowest_cpu_s = 0;          // CPU time of that sender
  double receiver_cpu_s = 0;         // busiest receiver's consumer + deserialization time
  double has_deferred_s = 0;         // busiest receiver's TotalHasDeferredRPCsTime
  double mean_rpc_network_s = 0;     // mean RpcNetworkTime per RPC
  double rtt_s = 0;                  // empty-RPC round trip
  bool stopped_without_data = false; // cancelled or failed with no TransmitData RPC sent
};

// Rules, in order: an exchange cancelled or failed before its first TransmitData RPC -> none (no
// resource limited it: its figures describe the fault); receivers holding deferred RPCs for at least a fifth
// of the exchange -> backpressure; the slowest sender blocked for at least a fifth -> bandwidth when the mean
// RPC spends more than 1.5 RTT on the network (payload time dominates), else rpc_window; otherwise the busier
// CPU side.
Bound classify_bound(const BoundFigures& f);

} // namespace exsim
