#include "models/core/critical_path.hpp"

namespace exsim {

const std::array<PathPartInfo, kPathParts>& path_parts() {
  static const std::array<PathPartInfo, kPathParts> parts{{
      {PathPart::startup, "startup_s", "start-up", "start-up", "start-up and code generation"},
      {PathPart::cpu_scan, "cpu_scan_s", "scan CPU", "operators' CPU", "scans' CPU per row read"},
      {PathPart::cpu_join_build, "cpu_join_build_s", "join build CPU", "operators' CPU",
       "hash join builds' CPU"},
      {PathPart::cpu_join_probe, "cpu_join_probe_s", "probe CPU", "operators' CPU", "hash join probes' CPU"},
      {PathPart::cpu_aggregate, "cpu_aggregate_s", "aggregation CPU", "operators' CPU", "aggregations' CPU"},
      {PathPart::cpu_sort, "cpu_sort_s", "sort CPU", "operators' CPU", "sorts' and top-n's CPU"},
      {PathPart::cpu_analytic, "cpu_analytic_s", "analytic CPU", "operators' CPU", "analytic functions' CPU"},
      {PathPart::cpu_other, "cpu_other_s", "other CPU", "operators' CPU",
       "other operators' CPU (select, union, limit, an exchange-only producer or consumer)"},
      {PathPart::cpu_exchange_send, "cpu_exchange_send_s", "sender CPU", "exchange CPU",
       "the senders' hashing, copying, serialization and compression", true},
      {PathPart::cpu_deserialize, "cpu_deserialize_s", "deserialization", "exchange CPU",
       "the receivers' deserialization, waiting for a service thread included", true},
      {PathPart::cpu_contention, "cpu_contention_s", "CPU contention", "CPU contention",
       "CPU work stretched by sharing the cores"},
      {PathPart::rtt, "rtt_s", "round trips", "round trips",
       "latency of RPCs: the route's (request and response) and a request's hand-off to a service thread at "
       "its receiver (rpc_dispatch_us)",
       true},
      {PathPart::bandwidth, "bandwidth_s", "bandwidth", "bandwidth",
       "payload transfer, waiting behind other transfers on a connection included", true},
      {PathPart::backpressure, "backpressure_s", "backpressure", "backpressure",
       "RPCs deferred with no reader to blame: a reader's progress lets deferred RPCs in, so time senders "
       "wait on a full receiver is attributed to what that reader did meanwhile", true},
      {PathPart::join_build_wait, "join_build_wait_s", "waits for join builds", "waits for join builds",
       "a probe side waiting for its join's build beyond the build's own path: the probe takes the path "
       "of a build that finished last, so the build's scans, exchanges and inserts count in their own parts"},
      {PathPart::runtime_filter_wait, "runtime_filter_wait_s", "waits for runtime filters",
       "waits for runtime filters",
       "a scan waiting for its runtime filters (up to runtime_filter_wait_time_ms)"},
  }};
  return parts;
}

const char* path_part_key(PathPart p) {
  return p == PathPart::count ? "?" : path_parts()[static_cast<std::size_t>(p)].key;
}

SharedPath::Node* SharedPath::free_ = nullptr;

SharedPath::SharedPath(const Path& p) {
  if (free_) {
    n_ = free_;
    free_ = n_->next_free;
    n_->path = p;
    n_->holders = 1;
  } else {
    n_ = new Node{p};
  }
}

void SharedPath::release() {
  if (n_ && --n_->holders == 0) {
    n_->next_free = free_;
    free_ = n_;
  }
}

} // namespace exsim
