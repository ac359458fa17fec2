// The results document: stable names (Impala's profile counter names, times in seconds with an
// `_s` suffix) that later tools depend on. Documented in docs/results.md; schema in
// docs/results.schema.json.
//   nlohmann::json doc = exsim::assemble_results(scenario, exchanges, queries);
#pragma once

#include <nlohmann/json.hpp>

namespace exsim {

class ExchangeRuntime;
class QueryRuntime;
struct Scenario;

// One exchange's entry, from its simulated counters.
nlohmann::json exchange_result(const ExchangeRuntime& x, const Scenario& sc);
// One query's entry, from its run and its exchanges' entries (a query named "" has none: null).
nlohmann::json query_result(const QueryRuntime& q, const nlohmann::json& exchanges);
// Moves every time of a query's entry and of its exchanges' entries by `offset` seconds.
void shift_query(nlohmann::json& query, nlohmann::json& exchanges, double offset);
// The whole document from the exchanges' entries (in scenario order) and the queries' entries
// (in scenario order; nulls are left out): adds the summary.
nlohmann::json assemble_results(const Scenario& sc, nlohmann::json exchanges, nlohmann::json queries);

} // namespace exsim
