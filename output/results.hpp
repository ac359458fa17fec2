// The results document: stable names (Impala's profile counter names, times in seconds with an
// `_s` suffix) that later tools depend on. Documented in docs/results.md; schema in
// docs/results.schema.json. Built from the run's plain values (models/run.hpp) and the scenario.
//   nlohmann::json doc = exsim::results_document(scenario, exsim::simulate(scenario));
#pragma once

#include <nlohmann/json.hpp>

namespace exsim {

struct Scenario;
struct WorkloadRun;

// Every exchange (in scenario order) and query, and the summary.
nlohmann::json results_document(const Scenario& sc, const WorkloadRun& run);

} // namespace exsim
