// The readable summary of a remote-scan results document (`exsim run --summary`); it reads only
// the results JSON, so it works the same on a file written earlier.
//   exsim::print_remote_scan_summary(results);
#pragma once

#include <nlohmann/json.hpp>

namespace exsim {

void print_remote_scan_summary(const nlohmann::json& results);

} // namespace exsim
