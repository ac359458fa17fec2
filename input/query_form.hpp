// The whole-query form (schema 2's `queries`): each query's fragments, operator trees and exchanges,
// references by id resolved to indices, the plan `mt_dop` selects (`fragments`, or `parallel` at
// mt_dop > 0; the other plan is checked too), and what the results' settings need of each.
//   read_queries(doc["queries"], defaults, version, first_index, names, sc, err);
#pragma once

#include "input/check.hpp"
#include "input/scenario.hpp"

#include <nlohmann/json.hpp>

#include <set>
#include <string>

namespace exsim {

// `queries_json`: structure checked; `defaults`: exchange_defaults; `first_exchange_index`: the
// index of the first query exchange among the scenario's; `names`: the query names already taken
// (the exchange-only form's). Appends to sc.queries and sc.settings_inputs.queries (sc.cluster,
// sc.flags and sc.costs already read); errors go to `err`.
void read_queries(const nlohmann::json& queries_json, const nlohmann::json& defaults, int version,
                  int first_exchange_index, std::set<std::string> names, Scenario& sc, Errors& err);

} // namespace exsim
