// The exchange-only form: a scenario's top-level `exchanges`, each becoming a pair of fragments (a
// producer of `rows_total` rows that sends on it, and a consumer that reads it) in the query its
// `query` key names, ordered by `after`.
//   ExchangeOnlyForm x = read_exchange_only(exchanges, version, sc, err);
#pragma once

#include "input/check.hpp"
#include "input/scenario.hpp"

#include <nlohmann/json.hpp>

#include <set>
#include <string>

namespace exsim {

struct ExchangeOnlyForm {
  std::set<std::string> query_names; // the queries they form, first in the scenario's queries
};

// `exchanges`: exchange_defaults merged in, structure checked. Appends their queries to
// sc.queries and what the results' settings need of each exchange to sc.settings_inputs
// (sc.cluster, sc.query_order already read); errors go to `err` (thrown per phase).
ExchangeOnlyForm read_exchange_only(const nlohmann::json& exchanges, int version, Scenario& sc, Errors& err);

} // namespace exsim
