// Runs a scenario's queries on SimGrid: one engine per process (SimGrid allows no more), the
// platform, the models' Scheduler on SimGrid's clock, the network. With query_order "sequential"
// each query is simulated alone in a child process, `jobs` at a time, and starts on the workload's
// clock when the previous one ended (identical for any `jobs`). Returns the models' counters as
// plain values; output/results.hpp turns them into the results document.
//   exsim::WorkloadRun run = exsim::simulate(exsim::load_scenario(path));
#pragma once

#include "input/scenario.hpp"
#include "models/run.hpp"

#include <nlohmann/json.hpp>

namespace exsim {

// A scenario of exchanges and queries (a remote scan runs with sim/remote_scan.hpp). Prints
// progress to stderr about once a wall second when `progress` is set.
WorkloadRun simulate(const Scenario& scenario, bool progress = false, int jobs = 1);

// A query's run as its process hands it to the parent (every member a row of the results field
// table reads, models/run_fields.hpp, under its member's name), and back, exactly.
nlohmann::json query_run_json(const QueryRun& q);
QueryRun query_run_of(const nlohmann::json& j);

} // namespace exsim
