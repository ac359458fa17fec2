// The results document: stable names (Impala's profile counter names, times in seconds with an
// `_s` suffix) that later tools depend on. Documented in docs/results.md; schema in
// docs/results.schema.json.
#pragma once

#include <nlohmann/json.hpp>

namespace exsim {

class Simulation;
class ExchangeRun;
struct Scenario;

// One exchange's entry, from its simulated counters.
nlohmann::json exchange_result(const ExchangeRun& x, const Scenario& sc);
// The whole document from the exchanges' entries (in scenario order): queries and summary.
nlohmann::json assemble_results(const Scenario& sc, nlohmann::json exchanges);
// Both, for a simulation that ran every exchange.
nlohmann::json make_results(const Simulation& sim);

} // namespace exsim
