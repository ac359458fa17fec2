// The kinds of scenario the command line runs, one row each, as the network models and the sender
// kinds are registered: what `run` simulates and makes its results of, what `summary` prints, what
// `validate` says, what `--timing` counts. The scenario parser reads a file's "kind" (its row in
// input/rows/scenario.cpp lists the names); a results file says its kind the same way ("kind" absent:
// the exchanges' kind).
//   const exsim::ScenarioKind& k = exsim::kind_of(scenario);
//   nlohmann::json results = k.run(scenario, {progress, jobs}, events);
#pragma once

#include "input/scenario.hpp"
#include "output/summary.hpp"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <string>
#include <vector>

namespace exsim {

struct RunOptions {
  bool progress = false;
  int jobs = 1;
  std::vector<std::string> parts; // a part of every query (run --from-parts): merged, not simulated
};

struct ScenarioKind {
  const char* name;        // the scenario's and the results' "kind"
  const char* results_key; // besides "scenario" and "summary", what every results file of the kind holds
  const char* requests;    // what --timing counts: the exchanges' RPCs, the remote scan's GETs
  bool (*is)(const Scenario& sc);
  // Simulates and makes the results document; `events`: the models' events (0 where not counted).
  nlohmann::json (*run)(const Scenario& sc, const RunOptions& options, uint64_t& events);
  // What the user should know before the run starts ("" for nothing).
  std::string (*note)(const Scenario& sc);
  void (*print_summary)(const nlohmann::json& results, const SummaryOptions& options);
  std::string (*validated)(const Scenario& sc); // what `validate` says of a valid file
  double (*requests_of)(const nlohmann::json& summary);
};

const std::vector<ScenarioKind>& scenario_kinds();
const ScenarioKind& kind_of(const Scenario& sc);
// The kind a results document says it is; nullptr for a name no row has.
const ScenarioKind* results_kind(const nlohmann::json& results);

} // namespace exsim
