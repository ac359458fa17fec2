// The typed scenario the models run: the cluster, Impala's flags and each exchange, with every
// default filled in and every check passed (input/scenario.hpp builds them from a file).
// Defaults come from the parameter table (input/parameters.cpp), never from these declarations.
#pragma once

#include "models/batch.hpp"
#include "models/cost.hpp"
#include "models/partitioner.hpp"

#include <cstdint>
#include <string>
#include <vector>

namespace exsim {

// How bandwidth is shared: exsim's own max-min solver (models/network_share) or SimGrid's CM02
// model through its comms, the reference the first is tested against (README: Network model).
enum class NetworkModel { exsim, simgrid };

struct ClusterSpec {
  NetworkModel network_model = NetworkModel::exsim;
  int executors = 5;
  int cores_per_executor = 16;
  double nic_bandwidth_gbps = 12.5;
  double rtt_us = 390;
  double loopback_rtt_us = 50;
  double loopback_bandwidth_gbps = 100;
};

enum class EosFlush { pipelined, serial };

struct Flags {
  int64_t data_stream_sender_buffer_size = 16384;
  int64_t exchg_node_buffer_size_bytes = 10485760;
  int64_t batch_size = 1024;
  int mt_dop = 0;
  int rpcs_in_flight_per_channel = 1;
  bool compression = true;
  EosFlush eos_flush = EosFlush::pipelined;
  int datastream_service_num_svc_threads = 0; // 0: one per core
  int datastream_service_num_deserialization_threads = 16;
};

enum class FaultKind { receiver_close, rpc_error, cancel };

struct FaultSpec {
  FaultKind kind = FaultKind::cancel;
  double at_s = 0;
  int sender = -1;
  int receiver = -1;
};

struct ExchangeSpec {
  std::string id;
  std::string query;
  Partitioning partitioning = Partitioning::hash_partitioned;
  bool merging = false;
  int sender_executors = 0;
  int receiver_executors = 0;
  int sender_first_executor = 0;
  int receiver_first_executor = 0;
  int sender_instances_per_executor = 0;
  int receiver_instances_per_executor = 0;
  int64_t rows_total = 0;
  BatchShape shape;
  std::vector<double> receiver_weights;           // one per receiver instance
  std::vector<double> receiver_consumer_slowdown; // one per receiver instance
  int directed_fanout = 1;
  CpuCosts costs;
  double start_s = 0;
  std::vector<int> after; // indices into Scenario::exchanges
  int index = 0;          // position in the scenario file: names its random streams
  Flags flags;            // effective (global flags, then the exchange's overrides)
  int k = 1;              // effective RPCs in flight per channel
  std::vector<FaultSpec> faults;

  int senders() const { return sender_executors * sender_instances_per_executor; }
  int receivers() const { return receiver_executors * receiver_instances_per_executor; }
  // Instance i runs on executor first + i / instances_per_executor.
  int sender_host(int s) const { return sender_first_executor + s / sender_instances_per_executor; }
  int receiver_host(int r) const { return receiver_first_executor + r / receiver_instances_per_executor; }
};

} // namespace exsim
