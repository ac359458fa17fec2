// Runs queries on the models alone, with a hand-driven clock and a network with no sharing: each
// ordered pair of daemons is a FIFO that moves one request at a time at the link's bandwidth after
// the route's one-way latency. No SimGrid: the models' behaviour, tested on its own.
#pragma once

#include "input/scenario.hpp"
#include "models/network/routes.hpp"
#include "models/query/workload.hpp"

#include <deque>
#include <map>

namespace exsim::test {

class FifoNetwork : public Network {
public:
  FifoNetwork(Scheduler& s, const ClusterSpec& c)
      : sched_(s), cluster_(c), routes_(Routes::of(c.rtt_us, c.loopback_rtt_us, c.daemons_per_host)) {}
  void send(int from, int to, Request* req) override {
    const bool local = routes_.same_host(from, to); // the host's loopback path
    const double latency = routes_.one_way_s(from, to);
    const double bw = (local ? cluster_.loopback_bandwidth_gbps : cluster_.nic_bandwidth_gbps) * 1e9 / 8;
    double& free_at = free_at_[{from, to}];
    req->ready_at = sched_.now() + latency;
    const double start = std::max(req->ready_at, free_at);
    req->arrived_at = start + static_cast<double>(req->wire_bytes) / bw;
    free_at = req->arrived_at;
    sched_.at(req->arrived_at, req->on_arrival);
  }

private:
  Scheduler& sched_;
  ClusterSpec cluster_;
  Routes routes_;
  std::map<std::pair<int, int>, double> free_at_;
};

struct ModelRun {
  Scheduler sched;
  std::unique_ptr<FifoNetwork> net;
  std::unique_ptr<Workload> workload;
};

// Builds the scenario from `doc` and runs every query together to the end.
inline std::unique_ptr<ModelRun> run_models(const nlohmann::json& doc, const Scenario& sc) {
  (void)doc;
  auto run = std::make_unique<ModelRun>();
  run->net = std::make_unique<FifoNetwork>(run->sched, sc.cluster);
  run->workload = std::make_unique<Workload>(run->sched, *run->net, sc.cluster, sc.flags, sc.costs, sc.queries, sc.seed);
  run->workload->start({});
  while (!run->sched.empty())
    run->sched.run_next_instant();
  run->workload->rethrow_failure();
  return run;
}

} // namespace exsim::test
