// The results document of a remote-scan scenario ("kind": "remote_scan"): per executor its bytes,
// GETs, splits, consumer wait, first split, peaks, time series, bound; the summary with
// makespan_s. Documented in docs/results.md; schema in docs/results.schema.json.
//   nlohmann::json r = exsim::remote_scan_results(scenario, exsim::run_remote_scan(scenario));  // sim/remote_scan.hpp
#pragma once

#include <nlohmann/json.hpp>

namespace exsim {

struct Scenario;
struct RemoteScanRun;

nlohmann::json remote_scan_results(const Scenario& scenario, const RemoteScanRun& run);

} // namespace exsim
