#include "input/migrate.hpp"

#include "input/parameters.hpp"
#include "input/scenario.hpp"

#include <fmt/format.h>

namespace exsim {

nlohmann::ordered_json migrate_scenario(nlohmann::ordered_json doc, const std::string& file) {
  if (!doc.is_object() || !doc.contains("schema_version") || !doc["schema_version"].is_number_integer())
    throw InputError(fmt::format("{}: schema_version: expected a scenario with an integer schema_version", file));
  const int version = doc["schema_version"].get<int>();
  if (version == kSchemaVersion) return doc;
  if (version != 1)
    throw InputError(fmt::format("{}: schema_version: expected 1 (to migrate) or {}, got {}", file, kSchemaVersion,
                                 version));
  std::string removed;
  for (const char* key : {"query_overhead_s", "query_work_ns_per_row", "query_scanner_threads", "queries"})
    if (doc.contains(key)) removed += fmt::format("\n{}: {}: removed in schema_version 2; use {}", file, key,
                                                  removed_param(Section::scenario, key, 2)->replaced_by);
  if (!removed.empty())
    throw InputError(fmt::format("{}: cannot migrate: schema 2 simulates the time outside the exchanges from "
                                 "the queries' fragments and operators instead of adding it by formula{}",
                                 file, removed));
  doc["schema_version"] = kSchemaVersion;
  nlohmann::ordered_json& cluster = doc["cluster"];
  if (cluster.is_null()) cluster = nlohmann::ordered_json::object();
  if (!cluster.contains("cores_per_executor")) cluster["cores_per_executor"] = 16;
  if (!cluster.contains("threads_per_core")) cluster["threads_per_core"] = 1;
  return doc;
}

} // namespace exsim
