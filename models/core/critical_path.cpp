#include "models/core/critical_path.hpp"

namespace exsim {

const char* path_part_key(PathPart p) {
  switch (p) {
  case PathPart::startup:
    return "startup_s";
  case PathPart::cpu_scan:
    return "cpu_scan_s";
  case PathPart::cpu_join_build:
    return "cpu_join_build_s";
  case PathPart::cpu_join_probe:
    return "cpu_join_probe_s";
  case PathPart::cpu_aggregate:
    return "cpu_aggregate_s";
  case PathPart::cpu_sort:
    return "cpu_sort_s";
  case PathPart::cpu_analytic:
    return "cpu_analytic_s";
  case PathPart::cpu_other:
    return "cpu_other_s";
  case PathPart::cpu_exchange_send:
    return "cpu_exchange_send_s";
  case PathPart::cpu_deserialize:
    return "cpu_deserialize_s";
  case PathPart::cpu_contention:
    return "cpu_contention_s";
  case PathPart::rtt:
    return "rtt_s";
  case PathPart::bandwidth:
    return "bandwidth_s";
  case PathPart::backpressure:
    return "backpressure_s";
  case PathPart::join_build_wait:
    return "join_build_wait_s";
  case PathPart::runtime_filter_wait:
    return "runtime_filter_wait_s";
  case PathPart::count:
    break;
  }
  return "?";
}

} // namespace exsim
