// The remote-scan summary table (see remote_scan_summary.hpp).
#include "output/remote_scan_summary.hpp"

#include <fmt/format.h>

namespace exsim {

void print_remote_scan_summary(const nlohmann::json& r) {
  const auto& s = r.at("summary");
  const auto& pf = r.at("settings").at("prefetch");
  fmt::print(
      "scenario {} (remote_scan): {} executor(s) on {} host(s), C={}, byte window {:.0f} MiB, simulated "
      "{:.3f} s\n",
      r.at("scenario").at("name").get<std::string>(), s.at("executors").get<int>(), s.at("hosts").get<int>(),
      s.at("split_concurrency").get<int>(),
      static_cast<double>(pf.at("prefetchMaxInFlightBytes").get<int64_t>()) / (1024.0 * 1024.0),
      s.at("makespan_s").get<double>());
  fmt::print("{:>4} {:>4} {:>6} {:>8} {:>7} {:>9} {:>9} {:>8} {:>8} {:>6} {:>6} {:>11} {:>5} {:<9} {}\n",
             "exec", "host", "splits", "GB", "footers", "data_GETs", "first_s", "planned", "wait_s", "peakC",
             "GETs", "reserved_MiB", "nic", "bound", "window");
  for (const auto& x : r.at("executors"))
    fmt::print("{:>4} {:>4} {:>6} {:>8.3f} {:>7} {:>9} {:>9.4f} {:>8} {:>8.3f} {:>6} {:>6} {:>11.1f} "
               "{:>5.2f} {:<9} {}\n",
               x.at("index").get<int>(), x.at("host").get<int>(), x.at("splits").get<int>(),
               static_cast<double>(x.at("bytes").get<int64_t>()) / 1e9, x.at("footer_gets").get<int64_t>(),
               x.at("data_gets").get<int64_t>(), x.at("first_split_s").get<double>(),
               x.at("planned_at_first_split").get<int>(), x.at("consumer_wait_s").get<double>(),
               x.at("peak_splits_in_flight").get<int>(), x.at("peak_gets_in_flight").get<int>(),
               static_cast<double>(x.at("peak_bytes_reserved").get<int64_t>()) / (1024.0 * 1024.0),
               x.at("nic_utilization").get<double>(), x.at("bound").get<std::string>(),
               x.at("window_limit").get<std::string>());
  fmt::print("total: {} splits, {:.3f} GB in {} footer and {} data GETs, {:.1f} Gbit/s; first split at "
             "{:.4f} s with "
             "{} planned; bound {} (window {}), makespan {:.3f} s\n",
             s.at("splits").get<int64_t>(), static_cast<double>(s.at("bytes").get<int64_t>()) / 1e9,
             s.at("footer_gets").get<int64_t>(), s.at("data_gets").get<int64_t>(),
             s.at("throughput_gbps").get<double>(), s.at("first_split_s").get<double>(),
             s.at("planned_at_first_split").get<int>(), s.at("bound").get<std::string>(),
             s.at("window_limit").get<std::string>(), s.at("makespan_s").get<double>());
}

} // namespace exsim
