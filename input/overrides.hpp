// `--set NAME=VALUE` overrides of a scenario: a flag by its name (rpcs_in_flight_per_channel=2) or
// any value by its JSON path (cluster.rtt_us=50, queries[0].fragments[1].root.rows=1e6). Every key
// of a path is checked against the parameter table before anything is written; messages start
// with the option as the user typed it.
//   exsim::Override o = exsim::parse_override("cluster.rtt_us=50");
//   std::string written = exsim::apply_override(doc, o);   // "cluster.rtt_us"
#pragma once

#include "input/input_error.hpp"

#include <nlohmann/json.hpp>

#include <string>
#include <utility>

namespace exsim {

using Override = std::pair<std::string, std::string>; // NAME (flag or JSON path), VALUE

// Parses "NAME=VALUE"; throws InputError on a malformed argument.
Override parse_override(const std::string& arg);

// Applies one override; returns the JSON path it wrote (flags resolved to flags.NAME), so that a
// later error at that path can say the value came from the command line.
std::string apply_override(nlohmann::json& doc, const Override& o);

} // namespace exsim
