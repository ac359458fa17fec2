// A remote scan on SimGrid: each executor's models/remote_scan/split_prefetch.hpp prefetcher runs
// as events on the models' Scheduler, which the engine's clock drives (sim/clock.hpp); every GET
// is a SimGrid transfer from an "s3" host to the executor's host, started after its time to first
// byte and capped at S3's per-stream rate (Comm::set_rate), so that GETs share the host's NIC by
// SimGrid's max-min sharing.
//   exsim::RemoteScanRun run = exsim::run_remote_scan(scenario);   // scenario.remote_scan set
#pragma once

#include "input/scenario.hpp"
#include "models/run.hpp"

namespace exsim {

RemoteScanRun run_remote_scan(const Scenario& scenario);

} // namespace exsim
