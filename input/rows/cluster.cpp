#include "input/param_rows.hpp"

#include "models/network/network_model.hpp"

#include <fmt/format.h>

namespace exsim::param_rows {

namespace {

// cluster.network_model's meaning, from the registered models (models/network/network_model).
std::string network_models_meaning() {
  std::string text = "how transfers share the NICs:";
  const char* sep = " ";
  for (const NetworkModelKind& k : network_model_kinds()) {
    text += fmt::format("{}{} = {}", sep, k.name, k.meaning);
    sep = "; ";
  }
  return text;
}

} // namespace

void add_cluster_rows(std::vector<ParamSpec>& t) {
  using S = Section;
  using T = ParamType;
  const auto none = std::nullopt;
  // Cluster.
  t.push_back(binds(P(S::cluster, "executors", T::integer, "hosts", 5, 1, 1000,
                      "executor daemons, one simulated host each"),
                    &ClusterSpec::executors));
  // Schema 1 files have other defaults for these two: input/scenario.cpp writes them into the
  // file's object before it binds.
  t.push_back(binds(derived(P(S::cluster, "cores_per_executor", T::integer, "cores", 8, 1, 1024,
                              "physical cores per executor, shared by every thread on it (m6id.4xlarge: 8)"),
                            "8 (16 in schema 1 files)"),
                    &ClusterSpec::cores_per_executor));
  t.push_back(binds(derived(P(S::cluster, "threads_per_core", T::integer, "threads", 2, 1, 8,
                              "hardware threads per core (m6id.4xlarge: 2); Impala's per-core defaults count "
                              "cores x threads (logical CPUs)"),
                            "2 (1 in schema 1 files)"),
                    &ClusterSpec::threads_per_core));
  t.push_back(
      binds(P(S::cluster, "second_thread_gain", T::number, "fraction", 0.26, 0, 1,
              "extra throughput of a core running a second busy hardware thread (assumption: Hassanein, "
              "Rashid & Hammad, Int. J. Parallel Programming 36, 2008: 1.26x on TPC-H-like queries)"),
            &ClusterSpec::second_thread_gain));
  t.push_back(binds(P(S::cluster, "nic_bandwidth_gbps", T::number, "Gbit/s", 12.5, kMinGbps, kMaxGbps,
                      "NIC bandwidth of each executor, each direction"),
                    &ClusterSpec::nic_bandwidth_gbps));
  t.push_back(binds(P(S::cluster, "rtt_us", T::number, "us", 390, 0, 1e7,
                      "round trip of an empty RPC between two executors (flat in payload size)"),
                    &ClusterSpec::rtt_us));
  t.push_back(binds(P(S::cluster, "loopback_rtt_us", T::number, "us", 50, 0, 1e7,
                      "round trip of an empty RPC to the same daemon (assumption, not measured)"),
                    &ClusterSpec::loopback_rtt_us));
  t.push_back(binds(P(S::cluster, "loopback_bandwidth_gbps", T::number, "Gbit/s", 100, kMinGbps, kMaxGbps,
                      "bandwidth of the path to the same daemon (assumption, not measured)"),
                    &ClusterSpec::loopback_bandwidth_gbps));
  // The choices are the registered models in their order, which is NetworkModel's.
  t.push_back(binds(choices(P(S::cluster, "network_model", T::enumeration, "", "auto", none, none,
                              network_models_meaning()),
                            network_model_names()),
                    &ClusterSpec::network_model));
}

} // namespace exsim::param_rows
