// The simulator's rules that programs outside it need: for `exsim params --format json`, each
// sender kind's traits and how it sends (models/exchange/partitioning) and the byte layout of a
// batch (models/exchange/batch); for `exsim rules RULE`, the rules that compute, answered for the
// inputs a program gives. Python reads them from there (common/exsim_runner.py) instead of
// restating them.
//   nlohmann::json r = exsim::rules_json();
//   r["partitionings"][0]["send_mode"]["several_channels"];   // "collectors"
//   exsim::answer_rule("collector-rows", nlohmann::json::parse("[[16384, 93, 93]]"), "stdin:1");   // [176]
#pragma once

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

namespace exsim {

// {"partitionings": [{"name", "routes_rows", "every_receiver", "configured_k",
//                     "send_mode": {"one_channel", "several_channels"}}],
//  "batch": {"collector_max_tuple_bytes", "tuple_offset_bytes", "tuple_pointer_bytes"}}
nlohmann::json rules_json();

// The rules `exsim rules` answers, by name: "collector-rows".
std::vector<std::string> rule_names();

// The answers of rule `name` to `inputs`, a JSON array of inputs, as a JSON array in their order.
// "collector-rows": each input is [buffer_bytes, fixed_row_bytes, row_bytes], answered with the
// rows a hash sender's collector holds (collector_capacity_rows); each value is checked as a
// scenario's data_stream_sender_buffer_size, fixed_row_bytes and fixed_row_bytes + var_row_bytes
// are. InputError naming `label` and the JSON path of every bad value ("[3][1]"), or an unknown rule.
nlohmann::json answer_rule(const std::string& name, const nlohmann::json& inputs, const std::string& label);

} // namespace exsim
