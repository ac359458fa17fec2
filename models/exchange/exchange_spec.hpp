// An exchange as the typed scenario gives it: its sender kind, placement, row shape, CPU costs,
// effective flags, faults and the sender's configuration, every default filled in (input/exchange_keys.cpp
// builds it in both forms; the members without an initialiser are set by the rows of the parameter
// table, input/rows/exchange.cpp). The exchange's runtime (exchange.hpp, sender, receiver) reads it.
#pragma once

#include "models/config/settings.hpp"
#include "models/exchange/batch.hpp"
#include "models/exchange/cost.hpp"
#include "models/exchange/partitioning.hpp"
#include "models/exchange/sender_config.hpp"

#include <cstdint>
#include <string>
#include <vector>

namespace exsim {

// In the order of the fault `kind` row's choices.
enum class FaultKind { receiver_close, rpc_error, cancel };

// A fault injected into an exchange, each member set by its row of the table (input/parameters.cpp).
struct FaultSpec {
  FaultKind kind;
  double at_s;
  int sender;   // -1: none (a fault that names no sender)
  int receiver; // -1: none
};

// An exchange. The members without an initialiser are set by their rows of the table
// (input/rows/exchange.cpp), then resolved by input/exchange_keys.cpp and, for the exchange-only
// form's placement, input/exchange_only.cpp where a row says its default is derived; the others by
// input/exchange_keys.cpp (shape and costs by their own rows).
struct ExchangeSpec {
  std::string id;
  std::string query; // the exchange-only form's `query`; in a query, the query's name
  Partitioning partitioning;
  bool merging;
  // Placement of the sender and receiver instances: the exchange-only form's keys with their zeros
  // resolved (every executor, max(1, mt_dop) instances); in a query, its fragments' placement.
  int sender_executors;
  int receiver_executors;
  int sender_first_executor;
  int receiver_first_executor;
  int sender_instances_per_executor;
  int receiver_instances_per_executor;
  int sender_fragment = -1;             // index in the query's fragments
  int receiver_fragment = -1;           // index in the query's fragments
  int64_t rows_total;                   // exchange-only form: rows all senders send together
  BatchShape shape{};
  std::vector<double> receiver_weights; // one per receiver instance (absent from the file: 1 each)
  int directed_fanout;                  // 1 unless DIRECTED
  CpuCosts costs{};
  int index = 0;   // position among the scenario's exchanges: results order and random streams
  Flags flags{};   // effective (global flags, then the exchange's overrides)
  bool k_set_by_exchange = false; // its own flags set rpcs_in_flight_per_channel
  SenderConfig sender; // built once the receivers are known (input/exchange_keys.cpp)
  std::vector<FaultSpec> faults;
  std::string expected_json; // measured counters to compare with ("" or a JSON object)

  int senders() const { return sender_executors * sender_instances_per_executor; }
  int receivers() const { return receiver_executors * receiver_instances_per_executor; }
  // Instance i runs on executor first + i / instances_per_executor.
  int sender_host(int s) const { return sender_first_executor + s / sender_instances_per_executor; }
  int receiver_host(int r) const { return receiver_first_executor + r / receiver_instances_per_executor; }
};

// The exchange-only form's producer below an exchange's senders and consumer above its receivers,
// each member set by its row of the exchange's; input/exchange_only.cpp turns them into two fragments.
struct StandaloneEnds {
  double producer_ns_per_row;
  double consumer_ns_per_row;
  std::vector<double> receiver_consumer_slowdown; // per receiver instance (absent from the file: 1 each)
  double start_s;                                 // when both fragments may start
};

} // namespace exsim
