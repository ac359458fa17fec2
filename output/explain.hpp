// `exsim explain`: what a scenario's queries will run, without simulating: each fragment's
// placement, its threads and pipelines (source, streaming operators, sink, the builds a pipeline
// waits for), and each exchange's senders, receivers and K (in JSON also its whole sender
// configuration: send mode, collector rows, planned batch, memory estimate, why K is what it is).
// The same decomposition the models run (models/query/plan.hpp), as JSON or as text.
//   nlohmann::json plan = exsim::explain(scenario);
#pragma once

#include "input/scenario.hpp"

#include <nlohmann/json.hpp>

#include <string>

namespace exsim {

nlohmann::json explain(const Scenario& sc);
std::string explain_text(const nlohmann::json& plan);

} // namespace exsim
