#include "models/daemon/cluster.hpp"

namespace exsim {

Cluster::Cluster(Scheduler& s, const ClusterSpec& c, const Flags& flags, Network& net)
    : sched(s), network(net), spec(c), routes(Routes::of(c.rtt_us, c.loopback_rtt_us, c.daemons_per_host)) {
  const int svc = flags.datastream_service_num_svc_threads > 0 ? flags.datastream_service_num_svc_threads
                                                                : c.logical_cpus();
  const int deser = flags.datastream_service_num_deserialization_threads > 0
                        ? flags.datastream_service_num_deserialization_threads
                        : c.logical_cpus();
  for (int h = 0; h < c.hosts(); ++h)
    cpus_.push_back(std::make_unique<HostCpu>(s, c.cores_per_executor, c.threads_per_core, c.second_thread_gain));
  // Each daemon has its own pools, on its host's hardware threads.
  for (int d = 0; d < c.executors; ++d) {
    HostCpu& cpu = *cpus_.at(static_cast<size_t>(routes.host_of(d)));
    svc_.push_back(std::make_unique<ThreadPool>(cpu, svc));
    deser_.push_back(std::make_unique<ThreadPool>(cpu, deser));
  }
}

} // namespace exsim
