// Everything one simulation runs: the cluster and its queries, started together (each query
// from its own start time); the engine drives the Scheduler until every query has finished.
//   exsim::Workload w(sched, network, scenario_parts...);
//   w.start(); ... engine runs ...; w.finished();
#pragma once

#include "models/daemon/cluster.hpp"
#include "models/query/query.hpp"
#include "models/query/query_spec.hpp"

#include <memory>
#include <vector>

namespace exsim {

class Workload {
public:
  Workload(Scheduler& s, Network& net, const ClusterSpec& cluster, const Flags& flags, const OperatorCosts& costs,
           const std::vector<QuerySpec>& queries, uint64_t seed);
  Workload(const Workload&) = delete;
  Workload& operator=(const Workload&) = delete;

  // Starts every query now; `on_finished` runs (as an event) once all of them have finished.
  void start(Callback on_finished);
  bool finished() const;
  // Rethrows a model failure (a bug) caught inside a coroutine.
  void rethrow_failure() const;

  Cluster cluster;
  std::vector<std::unique_ptr<QueryRuntime>> queries;

private:
  void query_finished(uint64_t);
  Callback on_finished_;
  size_t finished_ = 0;
};

} // namespace exsim
