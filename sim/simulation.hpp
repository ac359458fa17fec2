// Runs a scenario on SimGrid: one engine per process (SimGrid allows no more), the platform, the
// models' Scheduler on SimGrid's clock, the network, and the results. With query_order
// "sequential" each query is simulated alone in a child process, `jobs` at a time, and the
// results are merged with each query starting when the previous one ended (identical for any
// `jobs`).
//   nlohmann::json results = exsim::simulate(exsim::load_scenario(path));
#pragma once

#include "input/scenario.hpp"

#include <nlohmann/json.hpp>

namespace exsim {

// Prints progress to stderr about once a wall second when `progress` is set.
nlohmann::json simulate(const Scenario& scenario, bool progress = false, int jobs = 1);

} // namespace exsim
