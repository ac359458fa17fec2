// Scenario files: loading, `--set` overrides, validation (structure against the parameter
// table, then meaning), and the typed, defaults-filled form the simulation runs.
//   exsim::Scenario s = exsim::load_scenario("scenarios/examples/hash_5x5.json",
//                                            {{"rpcs_in_flight_per_channel", "2"}});
// Bad input throws InputError whose message names the file, the JSON path and what was expected.
#pragma once

#include "models/batch.hpp"
#include "models/cost.hpp"
#include "models/partitioner.hpp"

#include <nlohmann/json.hpp>

#include <map>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace exsim {

class InputError : public std::runtime_error {
public:
  using std::runtime_error::runtime_error;
};

struct ClusterSpec {
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

enum class QueryOrder { concurrent, sequential };

struct Scenario {
  std::string file;
  QueryOrder query_order = QueryOrder::concurrent;
  std::string name;
  std::string description;
  uint64_t seed = 1;
  double query_overhead_s = 0;                    // added to every query's runtime (see the parameter table)
  double query_work_ns_per_row = 0;               // CPU per row outside the exchanges
  int query_scanner_threads = 0;                  // per executor at mt_dop 0; 0: one per core
  std::map<std::string, int64_t> query_work_rows; // per query, from "queries"
  std::map<std::string, int64_t> query_scan_rows; // per query, from "queries"
  // Time a query spends outside its exchanges: query_overhead_s, plus its scan rows' CPU spread over
  // executors x scan threads and its work rows' CPU over executors x max(1, mt_dop) threads.
  double query_extra_s(const std::string& query) const;
  ClusterSpec cluster;
  Flags flags;
  std::vector<ExchangeSpec> exchanges;
  nlohmann::json settings; // every effective parameter, for the results
};

using Override = std::pair<std::string, std::string>; // NAME (flag or JSON path), VALUE

// Parses "NAME=VALUE"; throws InputError on a malformed argument.
Override parse_override(const std::string& arg);

// Reads, overrides, validates and resolves a scenario file.
Scenario load_scenario(const std::string& path, const std::vector<Override>& overrides = {});

// Same, from JSON already in memory; `file` only labels the messages.
Scenario build_scenario(nlohmann::json doc, const std::string& file,
                        const std::vector<Override>& overrides = {});

} // namespace exsim
