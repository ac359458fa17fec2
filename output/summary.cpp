#include "output/summary.hpp"

#include <fmt/format.h>

namespace exsim {

void print_summary(const nlohmann::json& r) {
  const auto& s = r.at("summary");
  fmt::print("scenario {}: {} exchange(s), simulated {:.6f} s\n",
             r.at("scenario").at("name").get<std::string>(), s.at("exchanges").get<int64_t>(),
             s.at("makespan_s").get<double>());
  fmt::print("{:<16} {:<17} {:>2} {:>10} {:>9} {:>12} {:>10} {:>9} {:>12} {:<12} {}\n", "exchange",
             "partitioning", "K", "duration_s", "rpcs", "mean_rpc_B", "blocked_s", "deferred", "mem_est_MiB",
             "bound", "status");
  for (const auto& x : r.at("exchanges"))
    fmt::print("{:<16} {:<17} {:>2} {:>10.4f} {:>9} {:>12.0f} {:>10.4f} {:>9} {:>12.2f} {:<12} {}\n",
               x.at("id").get<std::string>(),
               x.at("partitioning").get<std::string>() + (x.at("merging").get<bool>() ? "*" : ""),
               x.at("k").get<int>(), x.at("duration_s").get<double>(), x.at("rpcs").get<int64_t>(),
               x.at("mean_rpc_bytes").get<double>(), x.at("slowest_sender_blocked_s").get<double>(),
               x.at("rpcs_deferred").get<int64_t>(),
               static_cast<double>(x.at("memory_estimate_bytes").get<int64_t>()) / (1024.0 * 1024.0),
               x.at("bound").get<std::string>(), x.at("status").get<std::string>());
  fmt::print("total: {} TransmitData RPCs, mean {:.0f} bytes on the wire, slowest-sender blocked time summed "
             "{:.4f} s, memory estimate {:.2f} MiB   (* = merging)\n",
             s.at("rpcs").get<int64_t>(), s.at("mean_rpc_bytes").get<double>(),
             s.at("slowest_sender_blocked_s_total").get<double>(),
             static_cast<double>(s.at("memory_estimate_bytes_total").get<int64_t>()) / (1024.0 * 1024.0));
  if (s.at("queries").get<int64_t>() > 0)
    fmt::print(
        "queries: {}, runtime summed {:.2f} s; hash exchanges: {} TransmitData RPCs, mean {:.0f} bytes on "
        "the wire; {} hash exchange(s) not pushing back, their slowest senders blocked {:.2f} s in all\n",
        s.at("queries").get<int64_t>(), s.at("runtime_s_total").get<double>(),
        s.at("hash_rpcs").get<int64_t>(), s.at("hash_mean_rpc_bytes").get<double>(),
        s.at("nonpushback_hash_exchanges").get<int64_t>(),
        s.at("nonpushback_slowest_sender_blocked_s_total").get<double>());
}

} // namespace exsim
