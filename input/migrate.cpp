#include "input/migrate.hpp"

#include "input/check.hpp"
#include "input/parameters.hpp"
#include "input/scenario.hpp"

#include <fmt/format.h>

namespace exsim {

nlohmann::ordered_json migrate_scenario(nlohmann::ordered_json doc, const std::string& file) {
  // Read as validate reads it: an integral number (1 or 1.0), compared whole, never narrowed first.
  if (!doc.is_object() || !doc.contains("schema_version") || !is_integral(nlohmann::json(doc["schema_version"])))
    throw InputError(fmt::format("{}: schema_version: expected a scenario with an integer schema_version", file));
  const double version = doc["schema_version"].get<double>();
  if (version == kSchemaVersion) return doc;
  if (version != 1)
    throw InputError(fmt::format("{}: schema_version: expected 1 (to migrate) or {}, got {}", file, kSchemaVersion,
                                 doc["schema_version"].dump()));
  std::string removed;
  for (const std::string& key : outside_formula_keys(doc))
    removed += fmt::format("\n{}: {}: {}", file, key, outside_formula_removed(key));
  if (!removed.empty()) throw InputError(fmt::format("{}: cannot migrate:{}", file, removed));
  doc["schema_version"] = kSchemaVersion;
  // A remote scan's keys did not change; its cluster has no cores.
  if (doc.value("kind", "exchange") == "remote_scan") return doc;
  nlohmann::ordered_json& cluster = doc["cluster"];
  if (cluster.is_null()) cluster = nlohmann::ordered_json::object();
  if (!cluster.contains("cores_per_executor")) cluster["cores_per_executor"] = 16;
  if (!cluster.contains("threads_per_core")) cluster["threads_per_core"] = 1;
  return doc;
}

std::string outside_formula_removed(const std::string& key) {
  return fmt::format("the formula for the time outside the exchanges is gone: exsim simulates that time from "
                     "the queries' fragments and operators (schema_version 2, scenarios/README.md); use {}, or "
                     "drop the key to simulate the exchanges alone",
                     removed_param(Section::scenario, key, 2)->replaced_by);
}

} // namespace exsim
