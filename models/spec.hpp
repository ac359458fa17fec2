// The typed scenario the models run: the cluster, Impala's flags, CPU costs and the queries with
// their fragments, operators and exchanges, every default filled in and every check passed
// (input/scenario.hpp builds them from a file). A key's default comes from the parameter table
// (input/parameters.cpp), whose rows name the members they set, never from these declarations;
// an initialiser here is the starting value of a member the parser sets itself (a reference
// resolved to an index, the tree, a value taken from another section).
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
// (input/parameters.cpp), then resolved by input/scenario.cpp where a row says its default is
// derived; the others by input/scenario.cpp (shape and costs by their own rows).
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
  SenderConfig sender; // built once the receivers are known (input/scenario.cpp)
  std::vector<FaultSpec> faults;
  std::string expected_json; // measured counters to compare with ("" or a JSON object)

  int senders() const { return sender_executors * sender_instances_per_executor; }
  int receivers() const { return receiver_executors * receiver_instances_per_executor; }
  // Instance i runs on executor first + i / instances_per_executor.
  int sender_host(int s) const { return sender_first_executor + s / sender_instances_per_executor; }
  int receiver_host(int r) const { return receiver_first_executor + r / receiver_instances_per_executor; }
};

// The exchange-only form's producer below an exchange's senders and consumer above its receivers,
// each member set by its row of the exchange's; input/scenario.cpp turns them into two fragments.
struct StandaloneEnds {
  double producer_ns_per_row;
  double consumer_ns_per_row;
  std::vector<double> receiver_consumer_slowdown; // per receiver instance (absent from the file: 1 each)
  double start_s;                                 // when both fragments may start
};

// The values in the order of the `op` row's choices (the table reads a name by its index there);
// generate and consume are the exchange-only form's, which the parser builds itself.
enum class OpKind {
  scan,
  exchange,
  hash_join,
  nested_loop_join,
  aggregate,
  sort,
  top_n,
  analytic,
  select,
  limit,
  union_all,
  generate, // exchange-only form: the producer below a sender (rows at a CPU cost per row)
  consume   // exchange-only form: the consumer above a receiver
};

// A runtime filter a scan applies: produced by a join's build (in any fragment of the query), it
// keeps `keep` of the scan's rows. The scan's `rows` already counts every filter applied.
struct RuntimeFilterSpec {
  std::string join;  // the producing join's operator id
  int fragment = -1; // where that join is: fragment index, operator index
  int op = -1;
  double keep = 1;
};

// The values in the order of the `phase` row's choices.
enum class AggregatePhase { streaming, finalize };

// An operator. The members without an initialiser are set by their rows of the table
// (input/parameters.cpp) whatever the operator's kind (a key its kind does not use is refused, so
// there the row's default stands); the others by input/scenario.cpp from references and the tree.
struct OpSpec {
  OpKind kind;
  std::string id;
  double rows;                          // output rows over all instances, as the plan estimates
  std::vector<int> inputs;              // operator indices; a join: probe, then its build if here
  // scan
  std::string table;
  double rows_read;                     // a scan's rows read before predicates
  int64_t scan_ranges;                  // 0: as many as instances want
  std::vector<double> instance_weights; // share of the scan per instance (empty: even)
  std::vector<RuntimeFilterSpec> runtime_filters;
  // exchange leaf
  int exchange = -1;                    // index in the query's exchanges
  // joins
  int build_fragment = -1;              // a separate join-build fragment (index), else -1
  bool shared_build;                    // one build per executor serves its probe instances
  // aggregate
  AggregatePhase phase;                 // streaming (a pre-aggregation) or finalize (blocking)
  double groups;                        // pre-aggregation: output per instance at most this; 0: none
  // top_n, limit
  double limit;                         // output per instance at most this; < 0: none
  // generate, consume: the exchange-only form's, set from the exchange's keys
  double ns_per_row = 0;
  int64_t rows_exact = 0;               // generate: rows over all instances, split evenly
  std::vector<double> instance_factors; // consume: CPU factor per instance (slowdown)
};

enum class SinkKind { exchange, result, join_build };

// A fragment. The members without an initialiser are set by their rows of the table
// (input/parameters.cpp); the others by input/scenario.cpp from the tree and references, and in the
// exchange-only form from the exchange's keys.
struct FragmentSpec {
  std::string id;
  int executors;              // 0 until placed (models/query/plan): its leftmost input's
  int first_executor;
  int instances_per_executor; // 0 until placed: Impala's rule for mt_dop
  std::vector<OpSpec> ops;
  int root = 0;
  SinkKind sink = SinkKind::result;
  int sink_exchange = -1;      // SinkKind::exchange: index in the query's exchanges
  int sink_join_fragment = -1; // SinkKind::join_build: the probe fragment and its join operator
  int sink_join_op = -1;
  // Exchange-only form: when the fragment may start.
  double start_s = 0;
  std::vector<int> after_exchanges; // indices in the query's exchanges that must have finished

  int instances() const { return executors * instances_per_executor; }
  int host_of(int instance) const { return first_executor + instance / instances_per_executor; }
};

// A query. `name` is set by its row of the table (input/parameters.cpp), the rest by
// input/scenario.cpp: the start-up from the costs, the fragments and exchanges from the plan.
struct QuerySpec {
  std::string name;
  bool exchange_only = false; // built from top-level exchanges
  std::vector<FragmentSpec> fragments;
  std::vector<ExchangeSpec> exchanges;
  double startup_s = 0;        // before any fragment starts (costs.query_startup_s; exchange-only: 0)
  std::string expected_json;   // measured values to compare with ("" or a JSON object)
};

} // namespace exsim
