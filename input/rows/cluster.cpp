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
  t.push_back(binds(P(S::cluster, "executors", T::integer, "daemons", 5, 1, 1000,
                      "executor daemons (impalad), daemons_per_host of them on each simulated host"),
                    &ClusterSpec::executors));
  t.push_back(binds(listed_when_set(P(S::cluster, "daemons_per_host", T::integer, "daemons", 1, 1, 1000,
                      "executor daemons sharing one host: its cores, its NIC and its loopback path, which "
                      "carries their RPCs to each other (Impala's single-node performance runs start 3 on "
                      "one machine); daemons 0..n-1 share the first host, and so on")),
                    &ClusterSpec::daemons_per_host));
  // Schema 1 files have other defaults for these two: input/scenario.cpp writes them into the
  // file's object before it binds.
  t.push_back(binds(derived(P(S::cluster, "cores_per_executor", T::integer, "cores", 8, 1, 1024,
                              "physical cores of each host, shared by every thread of its daemons (m6id.4xlarge: 8)"),
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
                      "NIC bandwidth of each host, each direction"),
                    &ClusterSpec::nic_bandwidth_gbps));
  t.push_back(binds(P(S::cluster, "rtt_us", T::number, "us", 390, 0, 1e7,
                      "round trip of an empty RPC between two hosts (flat in payload size)"),
                    &ClusterSpec::rtt_us));
  t.push_back(binds(P(S::cluster, "loopback_rtt_us", T::number, "us", 50, 0, 1e7,
                      "round trip of an empty RPC within one host: to the same daemon or another on its host (assumption; "
                      "the bundled profiles of 3 daemons on one machine, DEBUG builds, measured 69.5 us: TPC-DS q72, "
                      "98,709 RPCs; and 242.7 us: COMPUTE STATS, 516 RPCs; mean RpcNetworkTime)"),
                    &ClusterSpec::loopback_rtt_us));
  t.push_back(binds(P(S::cluster, "rpc_dispatch_us", T::number, "us", 0, 0, 1e6,
                      "time from a data-stream RPC's request reaching its daemon to a service thread starting on it, "
                      "besides waiting for a free thread: KRPC hands the call from its reactor thread to the service "
                      "queue and a worker wakes (Impala's DispatchTime less the queue wait). The sender waits for it, "
                      "Impala's RpcNetworkTime (what rtt_us is) does not count it: it is receiver time "
                      "(RpcRecvrTime). 0: rtt_us is the whole round trip. The bundled DEBUG profiles measured a "
                      "DispatchTime of 19 us per RPC on 3 lightly loaded daemons of one machine (TPC-DS q72) and "
                      "31-802 us per receiver instance while COMPUTE STATS scanned; `exsim profile import` sets it "
                      "from a profile's DispatchTime"),
                    &ClusterSpec::rpc_dispatch_us));
  t.push_back(binds(P(S::cluster, "loopback_bandwidth_gbps", T::number, "Gbit/s", 100, kMinGbps, kMaxGbps,
                      "bandwidth of a host's loopback path, shared by its RPCs to the same daemon and between its daemons (assumption, not measured)"),
                    &ClusterSpec::loopback_bandwidth_gbps));
  // The choices are the registered models in their order, which is NetworkModel's.
  t.push_back(binds(choices(P(S::cluster, "network_model", T::enumeration, "", "auto", none, none,
                              network_models_meaning()),
                            network_model_names()),
                    &ClusterSpec::network_model));
}

} // namespace exsim::param_rows
