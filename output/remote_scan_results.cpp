// The remote-scan results document (see remote_scan_results.hpp).
#include "output/remote_scan_results.hpp"

#include "input/remote_scan.hpp"
#include "models/remote_scan/scan_bound.hpp"
#include "models/run.hpp"

#include <algorithm>

namespace exsim {

using nlohmann::json;

namespace {

// The window that kept work waiting longest, or "none".
std::string window_limit(const PrefetchCounters& c) {
  int best = -1;
  for (int l = 0; l < kPrefetchLimits; ++l)
    if (c.limited_s[l] > 1e-12 && (best < 0 || c.limited_s[l] > c.limited_s[best])) best = l;
  return best < 0 ? "none" : to_string(static_cast<PrefetchLimit>(best));
}

json executor_json(const ExecutorScanRun& x, double nic_utilization, double stream_cap_bps) {
  const PrefetchCounters& c = x.counters;
  const double gets = static_cast<double>(std::max<int64_t>(1, c.data_gets));
  const double stream_bps =
      c.data_transfer_s > 0 ? static_cast<double>(c.data_bytes) / c.data_transfer_s : 0.0;
  ScanBoundFigures f;
  f.span_s = c.end_s - c.begin_s;
  f.consumer_busy_s = c.consumer_busy_s;
  f.nic_utilization = nic_utilization;
  f.mean_ttfb_s = c.data_ttfb_s / gets;
  f.mean_transfer_s = c.data_transfer_s / gets;
  f.mean_stream_bps = stream_bps;
  f.stream_cap_bps = stream_cap_bps;
  json limited = json::object();
  for (int l = 0; l < kPrefetchLimits; ++l)
    limited[to_string(static_cast<PrefetchLimit>(l))] = c.limited_s[l];
  return {{"index", x.index},
          {"host", x.host},
          {"splits", c.splits},
          {"bytes", c.bytes()},
          {"footer_bytes", c.footer_bytes},
          {"data_bytes", c.data_bytes},
          {"footer_gets", c.footer_gets},
          {"data_gets", c.data_gets},
          {"start_s", c.begin_s},
          {"first_split_s", c.first_split_s},
          {"planned_at_first_split", c.planned_at_first_split},
          {"end_s", c.end_s},
          {"consumer_wait_s", c.consumer_wait_s},
          {"consumer_first_wait_s", c.consumer_first_wait_s},
          {"consumer_busy_s", c.consumer_busy_s},
          {"peak_splits_in_flight", c.peak_splits_in_flight},
          {"peak_gets_in_flight", c.peak_gets_in_flight},
          {"peak_bytes_reserved", c.peak_bytes_reserved},
          {"mean_data_get_ttfb_s", f.mean_ttfb_s},
          {"mean_data_get_transfer_s", f.mean_transfer_s},
          {"data_get_stream_Bps", stream_bps},
          {"nic_utilization", nic_utilization},
          {"limited_s", limited},
          {"window_limit", window_limit(c)},
          {"bound", to_string(classify_scan_bound(f))},
          {"series",
           {{"t_s", x.series.t_s},
            {"splits_in_flight", x.series.splits_in_flight},
            {"gets_in_flight", x.series.gets_in_flight},
            {"bytes_reserved", x.series.bytes_reserved}}}};
}

} // namespace

json remote_scan_results(const Scenario& sc, const RemoteScanRun& run) {
  const RemoteScanScenario& rs = *sc.remote_scan;
  json executors = json::array();
  int64_t splits = 0, bytes = 0, footer_gets = 0, data_gets = 0, reserved_peak = 0;
  double wait = 0, makespan = 0, first = -1;
  size_t last = 0, earliest = 0;
  for (size_t i = 0; i < run.executors.size(); ++i) {
    const ExecutorScanRun& x = run.executors[i];
    const PrefetchCounters& c = x.counters;
    executors.push_back(
        executor_json(x, run.host_nic_utilization.at(static_cast<size_t>(x.host)), rs.stream_mb_per_s * 1e6));
    splits += c.splits;
    bytes += c.bytes();
    footer_gets += c.footer_gets;
    data_gets += c.data_gets;
    reserved_peak = std::max(reserved_peak, c.peak_bytes_reserved);
    wait += c.consumer_wait_s;
    if (c.end_s > makespan) {
      makespan = c.end_s;
      last = i;
    }
    if (c.first_split_s >= 0 && (first < 0 || c.first_split_s < first)) {
      first = c.first_split_s;
      earliest = i;
    }
  }
  int planned_min = 0, planned_max = 0;
  for (size_t i = 0; i < run.executors.size(); ++i) {
    const int p = run.executors[i].counters.planned_at_first_split;
    planned_min = i == 0 ? p : std::min(planned_min, p);
    planned_max = i == 0 ? p : std::max(planned_max, p);
  }
  const json& critical = executors.at(last);
  json summary = {{"executors", rs.executors},
                  {"hosts", rs.hosts},
                  {"split_concurrency", rs.prefetch.split_concurrency},
                  {"splits", splits},
                  {"bytes", bytes},
                  {"footer_gets", footer_gets},
                  {"data_gets", data_gets},
                  {"first_split_s", first},
                  {"planned_at_first_split", executors.at(earliest).at("planned_at_first_split")},
                  {"planned_at_first_split_min", planned_min},
                  {"planned_at_first_split_max", planned_max},
                  {"consumer_wait_s_total", wait},
                  {"bytes_reserved_peak", reserved_peak},
                  {"throughput_gbps", makespan > 0 ? static_cast<double>(bytes) * 8 / makespan / 1e9 : 0.0},
                  {"makespan_s", makespan},
                  {"critical_executor", critical.at("index")},
                  {"bound", critical.at("bound")},
                  {"window_limit", critical.at("window_limit")}};
  if (rs.prefetch.split_policy != WindowPolicyKind::fixed) {
    // What C did under an adaptive policy: per executor in its entry, here their mean and the largest.
    double mean = 0;
    int cap_seen = 0;
    for (size_t i = 0; i < run.executors.size(); ++i) {
      const PrefetchCounters& c = run.executors[i].counters;
      mean += c.split_limit_mean / static_cast<double>(run.executors.size());
      cap_seen = std::max(cap_seen, c.split_limit_max);
      executors[i]["c_window"] = {{"c_mean", c.split_limit_mean}, {"c_max", c.split_limit_max}};
    }
    summary["c_window"] = {{"policy", to_string(rs.prefetch.split_policy)},
                           {"c_start", rs.prefetch.split_concurrency},
                           {"c_cap", rs.prefetch.split_max},
                           {"c_mean", mean},
                           {"c_max", cap_seen}};
  }
  return {{"exsim_version", EXSIM_VERSION},
          {"kind", "remote_scan"},
          {"scenario", {{"name", sc.name}, {"description", sc.description}, {"seed", sc.seed}}},
          {"settings", sc.settings},
          {"executors", std::move(executors)},
          {"summary", std::move(summary)}};
}

} // namespace exsim
