// Readable summaries of a results document (the `--summary` of `exsim run`): they read only
// the results JSON, so they work the same on a file written earlier.
//   exsim::print_summary(results);
#pragma once

#include <nlohmann/json.hpp>

namespace exsim {

// Prints the per-exchange table and the totals to stdout.
void print_summary(const nlohmann::json& results);

} // namespace exsim
