#include "input/param_rows.hpp"

#include "input/remote_scan.hpp"

#include <fmt/format.h>

namespace exsim::param_rows {

namespace {

// The remote scan's top level and its cluster.
void add_scan_and_cluster_rows(std::vector<ParamSpec>& t) {
  using S = Section;
  using T = ParamType;
  const auto none = std::nullopt;
  // Remote scan ("kind": "remote_scan"): executors reading Parquet splits from S3 through Velox's
  // executor-global split prefetch. Where each default was read: scenarios/velox_s3_q1/README.md.
  t.push_back(binds(P(S::remote_scan, "series_step_s", T::number, "s", 0.1, 1e-3, 1e6,
                      "step of the results' time series (the state at every multiple of it)"),
                    &PrefetchConfig::series_step_s));
  t.push_back(P(S::remote_scan, "cluster", T::object, "", json::object(), none, none,
                "the executors, their hosts and NICs"));
  t.push_back(P(S::remote_scan, "s3", T::object, "", json::object(), none, none,
                "S3 as a service: time to first byte and per-stream throughput"));
  t.push_back(P(S::remote_scan, "splits", T::object, "", json::object(), none, none,
                "the table-scan splits (count and sizes, or an explicit list)"));
  t.push_back(P(S::remote_scan, "prefetch", T::object, "", json::object(), none, none,
                "the executor-global split prefetch (Velox configs under their own names)"));
  t.push_back(P(S::remote_scan, "scan", T::object, "", json::object(), none, none,
                "scan drivers and the consumer (the GPU)"));

  t.push_back(binds(P(S::remote_scan_cluster, "executors", T::integer, "processes", 4, 1, 1000,
                      "executor processes, each with its own prefetcher, scan drivers and consumer; split i "
                      "goes to executor i mod executors"),
                    &RemoteScanScenario::executors));
  t.push_back(
      binds(derived(P(S::remote_scan_cluster, "hosts", T::integer, "hosts", 0, 0, 1000,
                      "hosts the executors run on: executor i on host i mod hosts; executors on one host "
                      "share its NIC; 0 means one host per executor"),
                    "0 = one per executor"),
            &RemoteScanScenario::hosts));
  t.push_back(binds(P(S::remote_scan_cluster, "nic_bandwidth_gbps", T::number, "Gbit/s", 25, kMinGbps,
                      kMaxGbps, "inbound NIC bandwidth of each host (an assumption unless measured)"),
                    &RemoteScanScenario::nic_bandwidth_gbps));
}

// S3: time to first byte and stream rate.
void add_s3_rows(std::vector<ParamSpec>& t) {
  using S = Section;
  using T = ParamType;
  const auto none = std::nullopt;
  t.push_back(binds_scaled(P(S::remote_scan_s3, "data_ttfb_p50_ms", T::number, "ms", 100, 1e-3, 1e6,
                             "median time to first byte of a data GET (up to part_bytes), lognormal (the S3 "
                             "performance guide: 100-200 ms for larger requests)"),
                           &PrefetchConfig::ttfb_p50_s, 1e-3));
  t.push_back(binds_scaled(P(S::remote_scan_s3, "data_ttfb_p99_ms", T::number, "ms", 400, 1e-3, 1e6,
                             "99th percentile of a data GET's time to first byte; at least data_ttfb_p50_ms"),
                           &PrefetchConfig::ttfb_p99_s, 1e-3));
  t.push_back(binds_scaled(P(S::remote_scan_s3, "footer_ttfb_p50_ms", T::number, "ms", 10, 1e-3, 1e6,
                             "median time to first byte of a footer GET (a small request), lognormal "
                             "(s3-benchmark: p90 about 20 ms)"),
                           &PrefetchConfig::footer_ttfb_p50_s, 1e-3));
  t.push_back(
      binds_scaled(P(S::remote_scan_s3, "footer_ttfb_p99_ms", T::number, "ms", 40, 1e-3, 1e6,
                     "99th percentile of a footer GET's time to first byte; at least footer_ttfb_p50_ms"),
                   &PrefetchConfig::footer_ttfb_p99_s, 1e-3));
  t.push_back(choices(
      P(S::remote_scan_s3, "ttfb_distribution", T::enumeration, "", "lognormal", none, none,
        "shape of both kinds' time to first byte: lognormal, from each kind's p50 and p99; quantiles, "
        "the table ttfb_quantiles_ms at ttfb_quantile_levels moved to each kind's p50 (the difference "
        "added to every draw), the p99s unused"),
      {"lognormal", "quantiles"}));
  t.push_back(exclusive_min(P(S::remote_scan_s3, "ttfb_quantile_levels", T::number_array, "probability",
                              json::array({0.002, 0.25, 0.5, 0.75, 0.9, 0.99, 0.998}), 0, 1,
                              "probabilities of ttfb_quantiles_ms, increasing, below 1, the median among "
                              "them (the defaults: s3-benchmark's min, p25, p50, p75, p90, p99 and max of "
                              "500 samples)")));
  t.push_back(exclusive_min(P(S::remote_scan_s3, "ttfb_quantiles_ms", T::number_array, "ms",
                              json::array({7, 9, 10, 12, 17, 75, 230}), 0, 1e6,
                              "time to first byte at each of ttfb_quantile_levels, non-decreasing; "
                              "draws interpolate ln(ms) linearly and stay within the first and last "
                              "(the defaults: s3-benchmark's 8 MB GETs from a c5.4xlarge, 8-12 threads, "
                              "the median of its five rows)")));
  t.push_back(binds(P(S::remote_scan_s3, "stream_mb_per_s", T::number, "MB/s (10^6 bytes)", 90, 1e-3, 1e6,
                      "throughput of one GET stream once its first byte arrived (the S3 guide: "
                      "85-90 MB/s per connection)"),
                    &RemoteScanScenario::stream_mb_per_s));
}

// The splits, and the executor-global prefetch.
void add_splits_and_prefetch_rows(std::vector<ParamSpec>& t) {
  using S = Section;
  using T = ParamType;
  const json null;
  const auto none = std::nullopt;
  t.push_back(derived(P(S::remote_scan_splits, "count", T::integer, "splits", null, 1, 1e7,
                        "number of splits (with data_bytes_total; or give `bytes`)"),
                      "the length of `bytes`"));
  t.push_back(derived(P(S::remote_scan_splits, "data_bytes_total", T::integer, "bytes", null, 1, 1e16,
                        "data bytes of all splits together (without footers), spread by size_cv"),
                      "the sum of `bytes`"));
  t.push_back(P(S::remote_scan_splits, "size_cv", T::number, "ratio", 0, 0, 10,
                "coefficient of variation of split data sizes: lognormal draws (seeded) scaled to sum to "
                "data_bytes_total; 0 gives equal sizes"));
  t.push_back(derived(exclusive_min(P(S::remote_scan_splits, "bytes", T::number_array, "bytes", null, 0, 1e16,
                                      "data bytes of each split in queue order, instead of count and "
                                      "data_bytes_total; whole numbers")),
                      "drawn from count, data_bytes_total and size_cv"));
  t.push_back(binds(P(S::remote_scan_splits, "footer_bytes", T::integer, "bytes", 65536, 1, 1 << 30,
                      "bytes of each split's footer GET (a 64 KiB metadata readahead)"),
                    &PrefetchConfig::footer_bytes));

  t.push_back(binds(
      P(S::remote_scan_prefetch, "executorSplitPrefetchConcurrency", T::integer, "splits (C)", 16, 1, 100000,
        "splits each executor keeps prefetching at once, from the start of a split's data load to "
        "its end (Velox's default min(16, prefetchThreads))"),
      &PrefetchConfig::split_concurrency));
  // Absent from a file unless set, so that results of scenarios without them keep their settings.
  t.push_back(derived(
      choices(P(S::remote_scan_prefetch, "split_prefetch_policy", T::enumeration, "", null, none, none,
                "how an executor's C moves at run time (a what-if: Velox has no such setting): fixed keeps "
                "executorSplitPrefetchConcurrency; bdp and gradient adapt it from the splits' load times "
                "(as rpcs_in_flight_policy does K), starting at executorSplitPrefetchConcurrency, up to "
                "split_prefetch_max"),
              window_policy_names()),
      "\"fixed\""));
  t.push_back(derived(P(S::remote_scan_prefetch, "split_prefetch_max", T::integer, "splits (C_max)", null, 1, 100000,
                        "an adaptive policy's cap on C (a what-if: Velox has no such setting); by default "
                        "plan_ahead_splits + scan.drivers, the most splits that can be registered at once (the "
                        "plan-ahead window and one held by each driver)"),
                      "plan_ahead_splits + scan.drivers"));
  t.push_back(
      binds(P(S::remote_scan_prefetch, "prefetchMaxInFlightBytes", T::integer, "bytes", 4294967296, 1, 1e16,
              "bytes of splits loading or loaded and not yet taken by a scan driver; a split a driver "
              "waits for may exceed it"),
            &PrefetchConfig::max_in_flight_bytes));
  t.push_back(
      binds(P(S::remote_scan_prefetch, "plan_ahead_splits", T::integer, "splits", 64, 1, 1e6,
              "splits at the head of an executor's queue whose footers are read ahead so that they can "
              "be prefetched (Velox's split preload: scan drivers x SplitPreloadPerDriver)"),
            &PrefetchConfig::plan_ahead_splits));
  t.push_back(
      binds(P(S::remote_scan_prefetch, "max_gets_in_flight", T::integer, "requests", 256, 1, 1e6,
              "data GETs in flight per executor process (the prefetch's scheduler); a waited-for split's "
              "GETs go first; footers are read by the planning, outside this window"),
            &PrefetchConfig::max_gets_in_flight));
  t.push_back(
      binds(P(S::remote_scan_prefetch, "part_bytes", T::integer, "bytes", 8388608, 1, 1e12,
              "largest data GET: a split's data is fetched in ceil(bytes / part_bytes) near-equal GETs, "
              "all issued at once (8 MiB: Velox's load quantum, the AWS CRT client's part size)"),
            &PrefetchConfig::part_bytes));
}

// The scan drivers.
void add_scan_driver_rows(std::vector<ParamSpec>& t) {
  using S = Section;
  using T = ParamType;
  const auto none = std::nullopt;
  t.push_back(binds(P(S::remote_scan_scan, "drivers", T::integer, "drivers", 4, 1, 1024,
                      "scan drivers per executor; each takes a split, hands it to the consumer, then takes "
                      "the next"),
                    &PrefetchConfig::scan_drivers));
  t.push_back(
      binds(choices(P(S::remote_scan_scan, "consumption", T::enumeration, "", "ready_first", none, none,
                      "which split a free scan driver takes: ready_first, the first loaded one; "
                      "planned_first, the first whose footer is read, then it waits for its data; "
                      "in_order, the next one in the queue, then it waits for it"),
                    {"ready_first", "planned_first", "in_order"}),
            &PrefetchConfig::consumption));
  t.push_back(binds(P(S::remote_scan_scan, "consumer_ns_per_byte", T::number, "ns", 0, 0, 1e6,
                      "consumer (GPU) time per data byte; one device per executor, shared equally by the "
                      "drivers feeding it"),
                    &PrefetchConfig::consumer_ns_per_byte));
  t.push_back(binds(P(S::remote_scan_scan, "startup_s", T::number, "s", 0, 0, 1e6,
                      "time from the query's start to the first footer GET"),
                    &PrefetchConfig::startup_s));
}

} // namespace

void add_remote_scan_rows(std::vector<ParamSpec>& t) {
  add_scan_and_cluster_rows(t);
  add_s3_rows(t);
  add_splits_and_prefetch_rows(t);
  add_scan_driver_rows(t);
}

} // namespace exsim::param_rows
