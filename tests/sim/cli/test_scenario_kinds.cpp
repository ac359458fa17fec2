// The scenario kinds' table: one row per name the scenario format allows for "kind", each scenario
// finds its row, and a results document is read back as the kind that wrote it.
#include "cli/scenario_kinds.hpp"
#include "input/parameters.hpp"

#include <catch2/catch.hpp>

#include <algorithm>
#include <set>
#include <string>

using namespace exsim;
using nlohmann::json;

TEST_CASE("every kind the scenario format names has its row, and no other", "[kinds]") {
  const ParamSpec* row = find_param(Section::scenario, "kind");
  REQUIRE(row != nullptr);
  std::set<std::string> registered;
  for (const ScenarioKind& k : scenario_kinds())
    CHECK(registered.insert(k.name).second);
  CHECK(registered == std::set<std::string>(row->choices.begin(), row->choices.end()));
}

TEST_CASE("a scenario is run by the row of its kind, and its results are read back as that kind", "[kinds]") {
  const Scenario exchange =
      build_scenario(json{{"schema_version", 2}, {"exchanges", json::array({{{"id", "x"}, {"partitioning", "RANDOM"}, {"rows_total", 1000}}})}},
                     "exchange");
  const Scenario scan = build_scenario(
      json{{"schema_version", 2}, {"kind", "remote_scan"}, {"splits", {{"count", 1}, {"data_bytes_total", 1}}}},
      "scan");
  CHECK(std::string(kind_of(exchange).name) == "exchange");
  CHECK(std::string(kind_of(scan).name) == "remote_scan");
  CHECK(std::string(results_kind(json{{"exchanges", json::array()}})->name) == "exchange");
  CHECK(std::string(results_kind(json{{"kind", "remote_scan"}})->name) == "remote_scan");
  CHECK(results_kind(json{{"kind", "something else"}}) == nullptr);
}
