// The results document: stable names (Impala's profile counter names, times in seconds with an
// `_s` suffix) that later tools depend on. Documented in docs/results.md; schema in
// docs/results.schema.json.
#pragma once

#include <nlohmann/json.hpp>

namespace exsim {

class Simulation;

nlohmann::json make_results(const Simulation& sim);

} // namespace exsim
