// The remote-scan bound rule (see scan_bound.hpp).
#include "models/remote_scan/scan_bound.hpp"

namespace exsim {

std::string to_string(ScanBound b) {
  switch (b) {
  case ScanBound::window:
    return "window";
  case ScanBound::nic:
    return "nic";
  case ScanBound::s3_stream:
    return "s3_stream";
  case ScanBound::consumer:
    return "consumer";
  }
  return "?";
}

ScanBound classify_scan_bound(const ScanBoundFigures& f) {
  if (f.span_s > 0 && f.consumer_busy_s >= 0.8 * f.span_s) return ScanBound::consumer;
  if (f.nic_utilization >= 0.8) return ScanBound::nic;
  if (f.mean_transfer_s > f.mean_ttfb_s && f.stream_cap_bps > 0 &&
      f.mean_stream_bps >= 0.9 * f.stream_cap_bps)
    return ScanBound::s3_stream;
  return ScanBound::window;
}

} // namespace exsim
