#include "models/daemon/cluster.hpp"

namespace exsim {

Cluster::Cluster(Scheduler& s, const ClusterSpec& c, const Flags& flags, Network& net)
    : sched(s), network(net), spec(c), routes(Routes::of(c.rtt_us, c.loopback_rtt_us)) {
  const int svc = flags.datastream_service_num_svc_threads > 0 ? flags.datastream_service_num_svc_threads
                                                                : c.logical_cpus();
  const int deser = flags.datastream_service_num_deserialization_threads > 0
                        ? flags.datastream_service_num_deserialization_threads
                        : c.logical_cpus();
  for (int h = 0; h < c.executors; ++h) {
    cpus_.push_back(std::make_unique<HostCpu>(s, c.cores_per_executor, c.threads_per_core, c.second_thread_gain));
    svc_.push_back(std::make_unique<ThreadPool>(*cpus_.back(), svc));
    deser_.push_back(std::make_unique<ThreadPool>(*cpus_.back(), deser));
  }
}

} // namespace exsim
