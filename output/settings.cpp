#include "output/settings.hpp"

#include "input/parameters.hpp"
#include "input/scenario.hpp"

#include <stdexcept>

namespace exsim {

using nlohmann::json;

namespace {

// The top-level rows the settings echo are read by hand into Scenario (they bind nothing, so that
// `exsim params` and its committed copy keep their bytes): written here under their rows' names,
// which must be rows of the scenario's version.
json top_level(const Scenario& sc) {
  const json values = {
      {"schema_version", sc.schema_version},
      {"seed", sc.seed},
      {"query_order", sc.query_order == QueryOrder::sequential ? "sequential" : "concurrent"}};
  for (const auto& [key, value] : values.items())
    if (find_param(Section::scenario, key, sc.schema_version) == nullptr)
      throw std::logic_error("settings_echo: not a scenario row: " + key);
  return values;
}

// A scenario-wide section is echoed where the scenario's version has it (costs: schema 2).
bool has_section(const char* key, int version) {
  return find_param(Section::scenario, key, version) != nullptr;
}

} // namespace

json settings_echo(const Scenario& sc) {
  const int v = sc.schema_version;
  const Scenario::SettingsInputs& in = sc.settings_inputs;
  json out = top_level(sc);
  if (has_section("cluster", v)) out["cluster"] = echo_fields(Section::cluster, sc.cluster, v, in.cluster);
  if (has_section("flags", v)) out["flags"] = echo_fields(Section::flags, sc.flags, v, in.flags);
  if (has_section("costs", v)) out["costs"] = echo_fields(Section::costs, sc.costs, v, in.costs);
  out["exchanges"] = in.exchanges;
  if (v >= 2) out["queries"] = in.queries; // schema 1's `queries` were the formula's rows, not queries
  return out;
}

} // namespace exsim
