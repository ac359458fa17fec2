// How many requests a window lets in flight, chosen at run time from what its own requests measured.
// A policy sees each request start and finish (time, bytes, how many were in flight) and answers
// limit(): a whole number between 1 and its cap. Three policies:
//  - fixed: the limit never moves (Impala's K slots, Velox's C splits as they are today);
//  - bdp: a bandwidth-delay-product estimate grown as gRPC's BDP estimator grows an HTTP/2 window
//    (grpc/grpc src/core/lib/transport/bdp_estimator.cc): one request at a time is the probe; the
//    bytes answered while it is out over its round trip are the delivery rate, and rate x the
//    smallest round trip seen is the product (BBR's bottleneck rate x propagation time; gRPC
//    counts the bytes of the ping's own round trip, which under queueing counts the queue as
//    pipe). When the product exceeds 2/3 of the estimate and the rate rose, the estimate becomes
//    the larger of the product and twice the estimate. The limit is the estimate over the mean
//    request bytes. It never shrinks (neither does gRPC's). Where the round trip varies by itself
//    (a storage service's time to first byte), the smallest one undercounts the pipe;
//  - gradient: a delay gradient, as Netflix concurrency-limits' GradientLimit: each response's
//    round trip against the smallest seen, gradient = clamp(tolerance x min / rtt, 0.5, 1),
//    new limit = limit x gradient + sqrt(limit) (the queue it allows), decreases smoothed; no
//    growth while fewer than half the limit are in flight (the sender, not the window, is slow).
//    Unlike the library: no floor of 4 (a channel's window starts at 1), no periodic reset of
//    the minimum (a simulated run has no drift to forget).
// Engine-free bookkeeping: the caller passes the time.
//   exsim::WindowPolicy p({.kind = WindowPolicyKind::bdp, .initial = 1, .max = 8});
//   p.on_start(id, now, bytes, in_flight);   ...   p.on_finish(id, now);   p.limit();
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace exsim {

enum class WindowPolicyKind { fixed, bdp, gradient };
bool parse_window_policy(const std::string& name, WindowPolicyKind& out);
const char* to_string(WindowPolicyKind k);
// Every policy's name, in the enum's order: what a flag choosing a policy accepts.
std::vector<std::string> window_policy_names();

struct WindowPolicySpec {
  WindowPolicyKind kind = WindowPolicyKind::fixed;
  int initial = 1; // the limit at the start (the fixed limit for `fixed`)
  int max = 1;     // the cap of an adaptive policy (its slots, and what memory estimates reserve)

  bool adaptive() const { return kind != WindowPolicyKind::fixed; }
  // The most requests the window may ever hold.
  int capacity() const { return adaptive() ? max : initial; }
};

// The algorithms' constants, as their sources set them by default.
struct WindowPolicyConstants {
  static constexpr double kBdpGrowThreshold = 2.0 / 3.0; // gRPC: grow when a probe saw > 2/3 of the estimate
  static constexpr double kBdpGain = 2.0;                // gRPC: the estimate at least doubles
  static constexpr double kGradientTolerance = 2.0;      // GradientLimit's rttTolerance
  static constexpr double kGradientSmoothing = 0.2;      // GradientLimit's smoothing (decreases)
  static constexpr double kGradientMinGradient = 0.5;    // at most halved per response
};

// The limit over time: change points, the time-weighted mean and the largest.
struct LimitTrace {
  double mean(double until) const; // time-weighted from the first change point to `until`
  int max = 0;
  std::vector<std::pair<double, int>> changes; // (time, limit from then on)
  void record(double now, int limit);
};

class WindowPolicy {
public:
  explicit WindowPolicy(const WindowPolicySpec& spec);

  int limit() const { return limit_; }
  const WindowPolicySpec& spec() const { return spec_; }

  // A request (slot `id`) starts at `now` carrying `bytes`; `in_flight` counts it and the others.
  void on_start(int id, double now, int64_t bytes, int in_flight);
  // It finished at `now`.
  void on_finish(int id, double now);

  // The limit over time (recorded from the first start; empty for a fixed limit).
  const LimitTrace& trace() const;

private:
  // What an adaptive policy learns from its requests. A fixed limit learns nothing and keeps none
  // of it: a sender has one window per channel, 1.44 M of them at 150 executors and mt_dop=8.
  struct Learning {
    LimitTrace trace;
    bool started = false;
    // Per slot: when its request started, its bytes, how many were in flight with it.
    std::vector<double> start_s;
    std::vector<int64_t> bytes;
    std::vector<int> in_flight;
    // Mean request bytes.
    double bytes_total = 0;
    int64_t requests = 0;
    // bdp: the probe in flight (its slot, when it left), bytes answered since, estimates.
    int probe = -1;
    double probe_start_s = 0;
    double probe_bytes = 0;
    double estimate_bytes = 0;
    double rate_estimate = 0;
    // gradient: the limit as a real number. Both: the smallest round trip seen.
    double estimated_limit = 0;
    double min_rtt = 0;
  };

  void set_limit(double now, int limit);
  void bdp_finish(int id, double now);
  void gradient_finish(double rtt, int in_flight_at_start, double now);

  WindowPolicySpec spec_;
  int limit_;
  std::unique_ptr<Learning> learn_; // adaptive policies only
};

} // namespace exsim
