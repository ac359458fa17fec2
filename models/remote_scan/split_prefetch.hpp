// One executor's executor-global split prefetch (Velox/Gluten's cuDF connector reading Parquet
// from S3), engine-free: it runs as events on the models' Scheduler and reads its GETs through the
// ObjectStore port (models/core/network_port.hpp). The mechanism:
//  - splits wait in the executor's queue in order; the first `plan_ahead_splits` of it are
//    planned: a footer GET (sent at priority) whose answer lets the split register its data;
//  - registered splits are prefetched by a models/window/window.hpp window of
//    executorSplitPrefetchConcurrency splits (C) whose bytes stay reserved, against
//    prefetchMaxInFlightBytes (B), from the start of the load until a scan driver takes the
//    split; a split a driver waits for is scheduled first and may exceed B, never C;
//  - a split's data is fetched as GETs of at most `part_bytes`, all issued at once through the
//    process's window of `max_gets_in_flight` data GETs, a waited-for split's first (footers are
//    read by the planning itself, outside that window);
//  - `scan_drivers` drivers take splits (see Consumption) and hand them to the executor's
//    consumer (the GPU), one device shared equally by the drivers feeding it
//    (models/cpu/shared_cpu.hpp with one core).
// Where each rule was read is in scenarios/velox_s3_q1/README.md.
//   exsim::SplitPrefetcher p(config, split_bytes, sched, store);
//   p.start(on_finished);         // on_finished runs as an event once the last split is consumed
#pragma once

#include "models/core/distribution.hpp"
#include "models/core/network_port.hpp"
#include "models/core/rng.hpp"
#include "models/cpu/shared_cpu.hpp"
#include "models/window/window.hpp"

#include <cstdint>
#include <deque>
#include <string>
#include <vector>

namespace exsim {

// Which split a free scan driver takes: the first loaded one (ready_first); the first whose
// footer is read, then it waits for its data (planned_first); or the next one in the queue, then
// it waits for it (in_order). A driver waiting for a split asks for it: it is loaded first. The
// values in the order of scan.consumption's choices (input/rows/remote_scan.cpp reads a name by its index).
enum class Consumption { ready_first, planned_first, in_order };

// One executor's prefetch. The members without an initialiser are each set by a row of the
// parameter table (input/rows/remote_scan.cpp: meaning, unit, default); the others by the scenario's
// loading (input/remote_scan.cpp) or the engine.
struct PrefetchConfig {
  int split_concurrency;                                   // executorSplitPrefetchConcurrency (C), splits
  WindowPolicyKind split_policy = WindowPolicyKind::fixed; // how C moves at run time (fixed: it does not)
  int split_max = 0; // an adaptive policy's cap on C, splits (the loading derives its default)
  int64_t max_in_flight_bytes;                    // prefetchMaxInFlightBytes (B); Window::kNoByteLimit: none
  int plan_ahead_splits;                          // splits planned ahead of the scan drivers
  int max_gets_in_flight;                         // GET requests in flight per executor process
  int64_t footer_bytes;                           // footer readahead per split
  int64_t part_bytes;                             // largest data GET
  Consumption consumption;
  int scan_drivers;
  double consumer_ns_per_byte;  // consumer (GPU) time per data byte, one split at a time
  double startup_s;             // before the first footer GET
  double series_step_s;         // time-series sampling step
  size_t max_series_points = 0; // samples kept at most (0: no bound); series_cut() says when reached
  double ttfb_p50_s;            // time to first byte of a data GET: lognormal, median...
  double ttfb_p99_s;            // ...and 99th percentile
  double footer_ttfb_p50_s;     // the same for a footer GET (a small request)
  double footer_ttfb_p99_s;
  // Non-empty: both kinds' time to first byte take this table's shape (QuantileTable, levels and
  // seconds) moved to their medians (TtfbDistribution::shifted); the p99s are then unused.
  std::vector<double> ttfb_quantile_levels;
  std::vector<double> ttfb_quantiles_s;
  uint64_t seed = 1; // the executor's random stream (time to first byte)
};

// Which window kept work waiting, as time totals (see SplitPrefetcher::counters).
enum class PrefetchLimit { prefetch_concurrency, prefetch_bytes, plan_ahead, gets_in_flight };
constexpr int kPrefetchLimits = 4;
const char* to_string(PrefetchLimit l);

struct PrefetchCounters {
  int splits = 0;           // consumed
  int64_t footer_bytes = 0; // read from storage
  int64_t data_bytes = 0;
  int64_t footer_gets = 0;
  int64_t data_gets = 0;
  double begin_s = 0;               // after start-up
  double first_split_s = -1;        // the first split's data loaded
  int planned_at_first_split = 0;   // splits planned (footer read) by then
  double end_s = 0;                 // the last split consumed
  double consumer_wait_s = 0;       // summed over drivers: idle while splits remained
  double consumer_first_wait_s = 0; // until the first split was handed to a driver
  double consumer_busy_s = 0;       // the consumer (GPU) working on at least one split
  int peak_splits_in_flight = 0;    // the C window
  int peak_gets_in_flight = 0;
  int64_t peak_bytes_reserved = 0; // the byte window: loading plus loaded, not yet taken
  double limited_s[kPrefetchLimits] = {0, 0, 0, 0};
  double data_ttfb_s = 0;     // summed over data GETs
  double data_transfer_s = 0; // summed over data GETs: from first to last byte
  double split_limit_mean = 0; // under an adaptive C: time-weighted from the first load to the end
  int split_limit_max = 0;

  int64_t bytes() const { return footer_bytes + data_bytes; }
};

// The state at fixed steps: at t_s[i], after every event at or before it.
struct PrefetchSeries {
  std::vector<double> t_s;
  std::vector<int> splits_in_flight;
  std::vector<int> gets_in_flight;
  std::vector<int64_t> bytes_reserved;
};

// `count` split sizes that sum to `total`, each at least one byte: lognormal weights of mean 1
// and coefficient of variation `cv` (seeded), scaled to the total; cv 0 gives equal sizes.
std::vector<int64_t> spread_split_bytes(int64_t count, int64_t total, double cv, uint64_t seed);

class SplitPrefetcher {
public:
  // `split_bytes`: data bytes of each split (> 0), in queue order.
  SplitPrefetcher(const PrefetchConfig& config, std::vector<int64_t> split_bytes, Scheduler& sched,
                  ObjectStore& store);

  // Starts now; `on_finished` (if set) runs as an event once the last split is consumed.
  void start(Callback on_finished = {});

  bool done() const { return consumed_ == static_cast<int>(splits_.size()); }
  const PrefetchCounters& counters() const { return c_; }
  const PrefetchSeries& series() const { return series_; }
  // The series reached max_series_points and stopped (the scan outlasted its steps).
  bool series_cut() const { return series_cut_; }
  // Parts (data GETs) a split of `bytes` is fetched in: ceil(bytes / part_bytes), near-equal.
  static std::vector<int64_t> parts_of(int64_t bytes, int64_t part_bytes);

private:
  enum class State { queued, planning, planned, loading, loaded, taken, consumed };
  struct Split {
    int64_t bytes = 0;
    State state = State::queued;
    int waiter = -1; // the driver waiting for it (demand: scheduled first, past B)
    int slot = -1;   // in the C window while loading
    int parts_left = 0;
  };
  struct Get {
    int split = 0;
    bool footer = false;
    int64_t bytes = 0;
    int slot = -1;
    double started_s = 0;
    double ttfb_s = 0;
  };
  struct Driver {
    int split = -1; // taken (consuming) or, in order, bound and waited for
    bool consuming = false;
    int demanded = -1; // ready-first: the split it asked for while waiting
    bool waiting = false;
    double wait_since = 0;
    uint64_t piece = 0;
  };

  // The events: a GET's last byte arrived (its id), a timer fired (its token).
  void get_done(uint64_t id);
  void timer(uint64_t token);
  void set_timer(double at_s, uint64_t token);

  void begin();
  void finish(double now);  // the last split consumed
  void account(double now); // time totals and series up to `now`, before the state changes
  void after_event();       // every rule that may act after a state change
  void plan();
  void pump();
  void schedule(int s);
  uint64_t new_get(int split, bool footer, int64_t bytes);
  void issue(uint64_t id);
  void dispatch_gets();
  void feed_drivers();
  void bind(int d, int s);
  void take(int d);
  void demand(int d, int s);
  void undemand(int d);
  void arm_consumer();
  void sample_until(double t);

  PrefetchConfig cfg_;
  Scheduler& sched_;
  ObjectStore& store_;
  Callback on_finished_;
  Rng rng_;
  TtfbDistribution ttfb_;
  TtfbDistribution footer_ttfb_;
  std::vector<Split> splits_;
  std::deque<int> queue_;    // not yet taken by a driver, in order
  std::vector<int> pending_; // registered, not yet scheduled, in registration order
  Window window_;            // C splits, B bytes
  Window gets_;              // data GETs in flight per process
  int footers_in_flight_ = 0;
  std::deque<uint64_t> urgent_, normal_;
  std::vector<Get> get_;
  std::vector<Driver> drivers_;
  SharedCpu consumer_;
  uint64_t consumer_token_ = 1; // token 0 is the start-up timer
  int consumed_ = 0;
  int planned_ = 0;
  bool begun_ = false;
  bool taken_any_ = false;
  double last_s_ = 0;
  double next_sample_s_ = 0;
  PrefetchCounters c_;
  PrefetchSeries series_;
  bool series_cut_ = false;
};

} // namespace exsim
