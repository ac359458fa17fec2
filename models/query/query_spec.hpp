// A query as the typed scenario gives it: its fragments with their operator trees, and its
// exchanges (exchange/exchange_spec.hpp), every default filled in (input/query_form.cpp builds it;
// the members without an initialiser are set by the rows of the parameter table,
// input/rows/query.cpp). The placement (plan.hpp), the query and the workload read it.
#pragma once

#include "models/exchange/exchange_spec.hpp"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace exsim {

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
// (input/rows/query.cpp) whatever the operator's kind (a key its kind does not use is refused, so
// there the row's default stands); the others by input/query_form.cpp from references and the tree.
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
  bool partitioned;                     // top_n per partition: each instance outputs at most its
                                        // share of rows, ceil(rows / instances), at least one
  // generate, consume: the exchange-only form's, set from the exchange's keys
  double ns_per_row = 0;
  int64_t rows_exact = 0;               // generate: rows over all instances, split evenly
  std::vector<double> instance_factors; // consume: CPU factor per instance (slowdown)
};

enum class SinkKind { exchange, result, join_build };

// A fragment. The members without an initialiser are set by their rows of the table
// (input/rows/query.cpp); the others by input/query_form.cpp from the tree and references, and in
// the exchange-only form (input/exchange_only.cpp) from the exchange's keys.
struct FragmentSpec {
  std::string id;
  int executors; // 0 until placed (models/query/plan): its leftmost input's, one
                 // when that input gathers an unpartitioned exchange
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

// A query. `name` is set by its row of the table (input/rows/query.cpp), the rest by
// input/query_form.cpp: the start-up from the costs, the fragments and exchanges from the plan.
struct QuerySpec {
  std::string name;
  bool exchange_only = false; // built from top-level exchanges
  std::vector<FragmentSpec> fragments;
  std::vector<ExchangeSpec> exchanges;
  double startup_s = 0;        // before any fragment starts (costs.query_startup_s; exchange-only: 0)
  std::string expected_json;   // measured values to compare with ("" or a JSON object)
  // The flags it runs with when it has its own (the scenario's with its own over them); unset:
  // the workload's.
  std::optional<Flags> flags;
  std::optional<OperatorCosts> costs; // the same for its operators' costs
};

} // namespace exsim
