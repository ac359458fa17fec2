// Runs a scenario's queries on SimGrid: one engine per process (SimGrid allows no more), the
// platform, the models' Scheduler on SimGrid's clock, the network. With query_order "sequential"
// each query is simulated alone in a child process, up to `jobs` at a time while their channels fit
// in memory together (kBytesPerChannel), and starts on the workload's clock when the previous one
// ended (identical for any `jobs`). Returns the models' counters as
// plain values; output/results.hpp turns them into the results document.
//   exsim::WorkloadRun run = exsim::simulate(exsim::load_scenario(path));
#pragma once

#include "input/scenario.hpp"
#include "models/run.hpp"

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

namespace exsim {

// The memory this process may use: the machine's, or its address-space limit (ulimit -v) when that
// is lower; `what` names which.
struct MemoryLimit {
  double bytes = 0;
  const char* what = "";
};
MemoryLimit memory_limit();

// A scenario of exchanges and queries (a remote scan runs with sim/remote_scan.hpp). Prints
// progress to stderr about once a wall second when `progress` is set.
WorkloadRun simulate(const Scenario& scenario, bool progress = false, int jobs = 1);

// One query of a "sequential" workload simulated alone, as a part: the text a query's process hands
// the parent (its name, its run, its events). merge_parts puts a part of every query, in query
// order, together as simulate does (each query starting when the previous one ended), so that parts
// simulated anywhere (on Dask workers: tools/dask_run.py) give the same results as a local run.
std::string query_part(const Scenario& scenario, size_t query);
WorkloadRun merge_parts(const Scenario& scenario, const std::vector<std::string>& parts);
// Share `share` of `shares` of the queries: the launch order (largest first, as --jobs starts them)
// dealt round robin, so that every share gets some of the large ones. query_share simulates them,
// each alone in a child process, and returns [{"index": query index, "part": its part}, ...].
std::vector<size_t> share_queries(const Scenario& scenario, size_t share, size_t shares);
std::string query_share(const Scenario& scenario, size_t share, size_t shares);

// A query's run as its process hands it to the parent (every member a row of the results field
// table reads, models/run_fields.hpp, under its member's name), and back, exactly.
nlohmann::json query_run_json(const QueryRun& q);
QueryRun query_run_of(const nlohmann::json& j);

} // namespace exsim
