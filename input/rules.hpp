// The simulator's rules that programs outside it need, for `exsim params --format json`: each
// sender kind's traits and how it sends (models/exchange/partitioning), and the byte layout of a
// batch (models/exchange/batch). Python reads them from there (common/exsim_runner.py) instead of
// restating them.
//   nlohmann::json r = exsim::rules_json();
//   r["partitionings"][0]["send_mode"]["several_channels"];   // "collectors"
#pragma once

#include <nlohmann/json.hpp>

namespace exsim {

// {"partitionings": [{"name", "routes_rows", "every_receiver", "configured_k",
//                     "send_mode": {"one_channel", "several_channels"}}],
//  "batch": {"collector_max_tuple_bytes", "tuple_offset_bytes", "tuple_pointer_bytes"}}
nlohmann::json rules_json();

} // namespace exsim
