// What a simulation hands to the results (output/): the models' counters and times, copied out of
// the runtimes when the run ended, as plain values. The simulation (sim/) builds them and the
// results document (output/) formats them; neither knows the other.
//   exsim::WorkloadRun run = exsim::simulate(scenario);            // sim/simulation.hpp
//   nlohmann::json doc = exsim::results_document(scenario, run);   // output/results.hpp
#pragma once

#include "models/core/critical_path.hpp"
#include "models/exchange/exchange.hpp"
#include "models/query/query.hpp"
#include "models/remote_scan/split_prefetch.hpp"

#include <cstdint>
#include <string>
#include <vector>

namespace exsim {

// One exchange: its status and span, and every instance's counters.
struct ExchangeRun {
  ExchangeStatus status = ExchangeStatus::ok;
  std::string error;
  double start_s = 0;
  double end_s = 0;
  std::vector<SenderCounters> senders;
  std::vector<ReceiverCounters> receivers;
  int64_t sender_bytes_peak = 0;
  int64_t receiver_bytes_peak = 0;
};

// One query, with its exchanges in the order of its spec. Times are on the clock of the simulation
// that ran it, which starts at `clock_offset_s` on the workload's clock: 0 when the queries run
// together; with query_order "sequential" (each query simulated alone from 0), when the previous
// query ended.
struct QueryRun {
  ExchangeStatus status = ExchangeStatus::ok;
  std::string error;
  double start_s = 0;
  double end_s = 0;
  Path breakdown;
  std::vector<FragmentStats> fragments;
  bool has_runtime_filters = false;
  std::vector<ExchangeRun> exchanges;
  double clock_offset_s = 0;
};

// Every query of a scenario, in scenario order.
struct WorkloadRun {
  std::vector<QueryRun> queries;
  // Events the models' Scheduler ran, summed over the query processes: what the benchmark divides
  // by the RPCs (scripts/bench.sh). Not part of the results.
  uint64_t events = 0;
};

ExchangeRun exchange_run(const ExchangeRuntime& x);
QueryRun query_run(const QueryRuntime& q);

// A remote scan ("kind": "remote_scan"): each executor's prefetcher counters and time series.
struct ExecutorScanRun {
  int index = 0;
  int host = 0;
  PrefetchCounters counters;
  PrefetchSeries series;
};

struct RemoteScanRun {
  std::vector<ExecutorScanRun> executors;
  std::vector<double> host_nic_utilization; // bytes / (bandwidth x span of the host's executors)
};

} // namespace exsim
