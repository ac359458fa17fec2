// `exsim migrate`: rewrites a scenario of an older schema_version in the current one, keeping
// what it means. Schema 1 to 2: the exchange-only form and remote scans are unchanged; a cluster
// that relied on schema 1's defaults (16 cores, each a full thread) gets them written out, since
// schema 2's defaults describe physical cores with two hardware threads each. Keys schema 2 removed (the
// formula for the time outside the exchanges) cannot be carried over: the migration stops and
// says what replaces them.
//   nlohmann::ordered_json v2 = exsim::migrate_scenario(v1, "old.json");
#pragma once

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

namespace exsim {

// Throws InputError (naming `file` and the JSON path) when the document cannot be migrated.
nlohmann::ordered_json migrate_scenario(nlohmann::ordered_json doc, const std::string& file);

// Schema 1's keys of the formula that added the time outside the exchanges to a query's runtime
// (present in `doc`, in table order). No version of exsim simulates with them any more: loading
// a schema 1 file refuses them, and so does the migration.
template <class Json> std::vector<std::string> outside_formula_keys(const Json& doc) {
  std::vector<std::string> out;
  for (const char* key : {"query_overhead_s", "query_work_ns_per_row", "query_scanner_threads", "queries"})
    if (doc.is_object() && doc.contains(key)) out.emplace_back(key);
  return out;
}
// Why `key` is refused and what replaces it.
std::string outside_formula_removed(const std::string& key);

} // namespace exsim
