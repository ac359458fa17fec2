// The simulated daemons as the models see them: each executor daemon's hardware threads (its
// host's, shared with the other daemons there) and its data-stream service pools (shared by every
// receiver on it, as in Impala), the routes between daemons and the network that carries requests. The engine provides the Scheduler's clock and
// the Network; everything else here is model.
//   exsim::Cluster c(sched, spec, flags, network);
//   c.cpu(host).start(ns, cb);   c.service_threads(host).submit(ns, cb);
#pragma once

#include "models/config/settings.hpp"
#include "models/core/network_port.hpp"
#include "models/core/scheduler.hpp"
#include "models/cpu/host_cpu.hpp"
#include "models/cpu/thread_pool.hpp"
#include "models/network/routes.hpp"

#include <memory>
#include <vector>

namespace exsim {

class Cluster {
public:
  // `flags` are the scenario's: the service pools are per daemon, one size for all exchanges.
  Cluster(Scheduler& s, const ClusterSpec& spec, const Flags& flags, Network& net);
  Cluster(const Cluster&) = delete;
  Cluster& operator=(const Cluster&) = delete;

  Scheduler& sched;
  Network& network;
  const ClusterSpec spec;
  Routes routes;

  // The hardware threads of daemon `host`'s host.
  HostCpu& cpu(int host) { return *cpus_.at(static_cast<size_t>(routes.host_of(host))); }
  // Deserializes batches admitted on arrival (datastream_service_num_svc_threads; 0 = logical CPUs).
  ThreadPool& service_threads(int host) { return *svc_.at(static_cast<size_t>(host)); }
  // Deserializes deferred batches once they fit (datastream_service_num_deserialization_threads).
  ThreadPool& deserialization_threads(int host) { return *deser_.at(static_cast<size_t>(host)); }

private:
  std::vector<std::unique_ptr<HostCpu>> cpus_;
  std::vector<std::unique_ptr<ThreadPool>> svc_;
  std::vector<std::unique_ptr<ThreadPool>> deser_;
};

} // namespace exsim
