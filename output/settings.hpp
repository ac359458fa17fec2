// The results' `settings`: every effective parameter of an exchange-kind scenario, defaults filled
// in, written from the bound structs by the parameter table's rows (echo_fields, the reverse of
// bind_fields) and what the file said that no member holds (Scenario::SettingsInputs).
//   nlohmann::json settings = exsim::settings_echo(scenario);
#pragma once

#include <nlohmann/json.hpp>

namespace exsim {

struct Scenario;

// {"schema_version", "seed", "query_order", "cluster", "flags", "costs" (schema 2), "exchanges",
// "queries" (schema 2)}.
nlohmann::json settings_echo(const Scenario& sc);

} // namespace exsim
