// Which resource limits a remote scan, read from one executor's simulated counters, so that a
// report can say why raising executorSplitPrefetchConcurrency helps or not: the consumer (GPU),
// the NIC, S3's per-stream throughput, or a window (C splits, the byte window, the plan-ahead
// window or the GETs in flight, named by `limit`).
//   exsim::ScanBound b = exsim::classify_scan_bound(figures);
#pragma once

#include <string>

namespace exsim {

enum class ScanBound { window, nic, s3_stream, consumer };
std::string to_string(ScanBound b);

struct ScanBoundFigures {
  double span_s = 0;          // from the end of start-up to the last split consumed
  double consumer_busy_s = 0; // the consumer working on at least one split
  double nic_utilization = 0; // busiest NIC the executor reads through: bytes / (bandwidth x span)
  double mean_ttfb_s = 0;     // per data GET: waiting for the first byte...
  double mean_transfer_s = 0; // ...and moving its bytes
  double mean_stream_bps = 0; // bytes per second of a data GET while it moves (bytes / transfer)
  double stream_cap_bps = 0;  // S3's per-stream throughput
};

// Rules, in order: the consumer busy for at least 80% of the span -> consumer; the NIC at least
// 80% utilised -> nic; data GETs spending longer moving bytes than waiting for the first one,
// at 90% of the per-stream cap or more -> s3_stream; otherwise the requests in flight, too few
// for their latency -> window.
ScanBound classify_scan_bound(const ScanBoundFigures& f);

} // namespace exsim
