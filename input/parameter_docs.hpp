// The parameter table for people and programs, generated from its rows: `exsim params` (text,
// and JSON for other programs) and the JSON Schema of scenario files (`exsim schema`).
//   std::cout << exsim::parameters_json().dump(1);
#pragma once

#include "input/parameters.hpp"

#include <nlohmann/json.hpp>

#include <string>

namespace exsim {

// Where a row may be set, for other programs: "daemon" (top-level flags only), "exchange" (an
// exchange's flags or keys), "cluster", "costs", "query", "remote_scan" or "scenario".
const char* scope_of(const ParamSpec& p);
// The struct of models/spec.hpp a row sets ("Flags", "CpuCosts", ...), or "" when none yet.
const char* bound_struct(const ParamSpec& p);

// JSON Schema (draft 2020-12) of scenario files of the current version, generated from the table: "kind" selects the
// exchange form (the default) or the remote_scan form.
nlohmann::json scenario_schema();

// Human-readable table of every parameter, for `exsim params` and --help.
std::string parameters_help();

// The same table for other programs (`exsim params --format json`): {"schema_version": N,
// "parameters": [{"section", "section_title", "name", "type", "unit", "required", "default",
// "derived", "check", "description", "standalone_only", "since", "scope", "binds", and "min",
// "max", "min_exclusive", "choices" where set}], "rules": rules_json()}, in the order of
// `exsim params`.
nlohmann::json parameters_json();

} // namespace exsim
