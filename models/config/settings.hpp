// What the daemons are set to: the executors and their network (ClusterSpec), Impala's flags
// (Flags) and the CPU costs of the operators (OperatorCosts), each member set by its row of the
// parameter table (input/rows/: meaning, unit, default). Every family reads them; they
// include only the value types they name.
#pragma once

#include "models/network/network_model.hpp"
#include "models/window/window_policy.hpp"

#include <cstdint>

namespace exsim {

// The executors and their network, each member set by its row of the table (input/rows/cluster.cpp:
// meaning, unit, default).
struct ClusterSpec {
  NetworkModel network_model; // how bandwidth is shared (models/network/network_model)
  int executors;             // daemons
  int daemons_per_host;      // daemons sharing one host's cores, NIC and loopback path
  int cores_per_executor;    // physical cores of each host
  int threads_per_core;      // hardware threads per core
  double second_thread_gain; // extra throughput of a core running a second thread
  double nic_bandwidth_gbps;
  double rtt_us;
  double loopback_rtt_us;
  double rpc_dispatch_us; // a request's hand-off to a service thread at its receiver
  double loopback_bandwidth_gbps;

  // What Impala calls the number of cores (CpuInfo::num_cores): the host's logical CPUs, which
  // every daemon on it counts as its own.
  int logical_cpus() const { return cores_per_executor * threads_per_core; }
  // Daemons d of a cluster share host d / daemons_per_host; the last host may hold fewer.
  int hosts() const { return (executors + daemons_per_host - 1) / daemons_per_host; }
};

// The values of each enumeration in the order of its row's choices (the table reads a name by its
// index there).
enum class EosFlush { pipelined, serial };
// Impala's RUNTIME_FILTER_MODE: which runtime filters the planner assigns to scans.
enum class RuntimeFilterMode { off, local, global };

// Impala's flags, each set by its row of the table (input/rows/flags.cpp: meaning, unit, default).
struct Flags {
  int64_t data_stream_sender_buffer_size;
  int64_t exchg_node_buffer_size_bytes;
  int64_t batch_size;
  int mt_dop;
  int rpcs_in_flight_per_channel;
  WindowPolicyKind rpcs_in_flight_policy; // how a channel's K moves at run time
  int rpcs_in_flight_max;                 // an adaptive policy's cap (K_max)
  bool rpcs_in_flight_series;             // results list each channel's K over time (adaptive policies)
  bool compression;
  bool compress_local_channels; // compression reaches channels to the same daemon too
  EosFlush eos_flush;
  int datastream_service_num_svc_threads; // 0: logical CPUs
  int datastream_service_num_deserialization_threads;
  int num_scanner_threads; // 0: logical CPUs
  RuntimeFilterMode runtime_filter_mode;
  double runtime_filter_wait_time_ms; // how long a scan waits for its runtime filters; 0: not at all
  int64_t runtime_bloom_filter_size;  // bytes of a runtime filter on the wire
};

// CPU per row of each operator class (ns of one hardware thread alone on a core), and the
// per-query start-up costs; each set by its row of the table.
struct OperatorCosts {
  double scan_ns_per_row;
  double join_build_ns_per_row;
  double join_probe_ns_per_row;
  double aggregate_ns_per_row;
  double sort_ns_per_row;
  double analytic_ns_per_row;
  double other_ns_per_row;
  double query_startup_s;
  double codegen_s_per_fragment;
};

} // namespace exsim
