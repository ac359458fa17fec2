#include "input/param_rows.hpp"

#include "models/exchange/partitioning.hpp"

#include <fmt/format.h>

namespace exsim::param_rows {

namespace {

// An exchange: its kind and where its senders and receivers run.
void add_kind_and_placement_rows(std::vector<ParamSpec>& t) {
  using S = Section;
  using T = ParamType;
  const json null;
  const auto none = std::nullopt;
  // Exchange. Its rows bind ExchangeSpec, BatchShape, CpuCosts and (the exchange-only form's
  // producer and consumer) StandaloneEnds; input/exchange_keys.cpp and input/exchange_only.cpp
  // resolve the derived defaults (the placement's zeros, the weights of 1, the fanout of 1 unless
  // DIRECTED). `source` is not read; `after` (ids of exchanges), `flags` (its own section),
  // `faults` (their section) and `expected` (kept as its text) are read by the parser.
  t.push_back(
      binds(required(P(S::exchange, "id", T::string, "", null, none, none, "unique name of the exchange")),
            &ExchangeSpec::id));
  t.push_back(binds(
      standalone(P(S::exchange, "query", T::string, "", "", none, none, "query the exchange belongs to")),
      &ExchangeSpec::query));
  t.push_back(
      P(S::exchange, "source", T::string, "", "", none, none, "where this exchange's numbers come from"));
  // The choices are the kinds' table in its order, which is Partitioning's.
  t.push_back(binds(required(choices(P(S::exchange, "partitioning", T::enumeration, "", null, none, none,
                                       "sender kind, as Impala's plans name it"),
                                     partitioning_names())),
                    &ExchangeSpec::partitioning));
  t.push_back(binds(P(S::exchange, "merging", T::boolean, "", false, none, none,
                      "merging receiver: one queue per sender, consumer pulls from specific queues"),
                    &ExchangeSpec::merging));
  t.push_back(binds(standalone(derived(P(S::exchange, "sender_executors", T::integer, "hosts", 0, 0, 1000,
                                         "executors running sender instances; 0 means all"),
                                       "0 = cluster.executors")),
                    &ExchangeSpec::sender_executors));
  t.push_back(binds(standalone(derived(P(S::exchange, "receiver_executors", T::integer, "hosts", 0, 0, 1000,
                                         "executors running receiver instances; 0 means all"),
                                       "0 = cluster.executors")),
                    &ExchangeSpec::receiver_executors));
  t.push_back(binds(standalone(P(S::exchange, "sender_first_executor", T::integer, "index", 0, 0, 999,
                                 "senders run on executors first..first+sender_executors-1")),
                    &ExchangeSpec::sender_first_executor));
  t.push_back(binds(standalone(P(S::exchange, "receiver_first_executor", T::integer, "index", 0, 0, 999,
                                 "receivers run on executors first..first+receiver_executors-1")),
                    &ExchangeSpec::receiver_first_executor));
  t.push_back(
      binds(standalone(derived(P(S::exchange, "sender_instances_per_executor", T::integer, "instances", 0, 0,
                                 1024, "sender fragment instances per executor; 0 means max(1, mt_dop)"),
                               "0 = max(1, mt_dop)")),
            &ExchangeSpec::sender_instances_per_executor));
  t.push_back(
      binds(standalone(derived(P(S::exchange, "receiver_instances_per_executor", T::integer, "instances", 0,
                                 0, 1024, "receiver fragment instances per executor; 0 means max(1, mt_dop)"),
                               "0 = max(1, mt_dop)")),
            &ExchangeSpec::receiver_instances_per_executor));
}

// Its rows: how many, their bytes, how they spread over the receivers.
void add_shape_rows(std::vector<ParamSpec>& t) {
  using S = Section;
  using T = ParamType;
  const json null;
  t.push_back(binds(standalone(required(P(S::exchange, "rows_total", T::integer, "rows", null, 0, 1e15,
                                          "rows sent by all sender instances together, split evenly"))),
                    &ExchangeSpec::rows_total));
  t.push_back(binds(P(S::exchange, "fixed_row_bytes", T::integer, "bytes", 64, 1, 1 << 24,
                      "fixed-length tuple bytes per row (sizes the hash collectors)"),
                    &BatchShape::fixed_row_bytes));
  t.push_back(binds(P(S::exchange, "var_row_bytes", T::integer, "bytes", 0, 0, 1 << 24,
                      "variable-length bytes per row (not counted by the collector)"),
                    &BatchShape::var_row_bytes));
  t.push_back(binds(P(S::exchange, "tuples_per_row", T::integer, "tuples", 1, 1, 64,
                      "tuples per row: 4 bytes of offset per tuple on the wire, 8 bytes of pointer per "
                      "tuple in the receiver's accounting"),
                    &BatchShape::tuples_per_row));
  t.push_back(
      binds(exclusive_min(P(S::exchange, "compression_ratio", T::number, "ratio", 0.5, 0, 1,
                            "LZ4 compressed / uncompressed tuple data (assumption unless calibrated)")),
            &BatchShape::compression_ratio));
  t.push_back(
      binds(derived(exclusive_min(P(S::exchange, "receiver_weights", T::number_array, "relative", null, 0,
                                    kMaxWeight,
                                    "share of rows per receiver instance (skew); one positive number per "
                                    "receiver")),
                    "uniform"),
            &ExchangeSpec::receiver_weights));
  t.push_back(binds(
      standalone(derived(
          exclusive_min(P(S::exchange, "receiver_consumer_slowdown", T::number_array, "factor", null, 0, 1e6,
                          "multiplies consumer_ns_per_row per receiver instance; one positive "
                          "number per receiver")),
          "1 for every receiver")),
      &StandaloneEnds::receiver_consumer_slowdown));
  t.push_back(binds(P(S::exchange, "directed_fanout", T::integer, "channels", 2, 1, 1024,
                      "DIRECTED: channels each row is sent to"),
                    &ExchangeSpec::directed_fanout));
}

// Its CPU costs per row and byte, when it starts, and the keys its parser reads.
void add_cost_and_order_rows(std::vector<ParamSpec>& t) {
  using S = Section;
  using T = ParamType;
  const auto none = std::nullopt;
  t.push_back(binds(standalone(P(S::exchange, "producer_ns_per_row", T::number, "ns", 0, 0, 1e9,
                                 "CPU per row of the producer below the sender (on the sender's thread)")),
                    &StandaloneEnds::producer_ns_per_row));
  t.push_back(binds(P(S::exchange, "hash_ns_per_row", T::number, "ns", 5, 0, 1e9,
                      "CPU per row to hash the partition expressions (HASH, KUDU, DIRECTED)"),
                    &CpuCosts::hash_ns_per_row));
  t.push_back(binds(P(S::exchange, "copy_ns_per_row", T::number, "ns", 10, 0, 1e9,
                      "CPU per row copy into a collector (HASH, KUDU, DIRECTED)"),
                    &CpuCosts::copy_ns_per_row));
  t.push_back(binds(P(S::exchange, "compress_ns_per_byte", T::number, "ns", 1.3, 0, 1e6,
                      "LZ4 compression CPU per uncompressed byte (about 780 MB/s)"),
                    &CpuCosts::compress_ns_per_byte));
  t.push_back(binds(P(S::exchange, "serialize_ns_per_byte", T::number, "ns", 0.1, 0, 1e6,
                      "serialization copy CPU per uncompressed byte"),
                    &CpuCosts::serialize_ns_per_byte));
  t.push_back(binds(P(S::exchange, "deserialize_ns_per_byte", T::number, "ns", 0.3, 0, 1e6,
                      "receiver LZ4 decompression and copy CPU per uncompressed byte"),
                    &CpuCosts::deserialize_ns_per_byte));
  t.push_back(
      binds(standalone(P(S::exchange, "consumer_ns_per_row", T::number, "ns", 0, 0, 1e9,
                         "CPU per row of the consumer above the receiver (on the receiving fragment's "
                         "thread)")),
            &StandaloneEnds::consumer_ns_per_row));
  t.push_back(binds(standalone(P(S::exchange, "start_s", T::number, "s", 0, 0, 1e9, "earliest start time")),
                    &StandaloneEnds::start_s));
  t.push_back(standalone(P(S::exchange, "after", T::string_array, "", json::array(), none, none,
                           "ids of exchanges of the same query that must finish before this one starts")));
  t.push_back(
      P(S::exchange, "flags", T::object, "", json::object(), none, none, "flag overrides for this exchange"));
  t.push_back(standalone(P(S::exchange, "faults", T::array, "", json::array(), none, none,
                           "faults injected into this exchange")));
  t.push_back(only_since(P(S::exchange, "expected", T::object, "", json::object(), none, none,
                           "measured counters to compare with (keys as in the results); copied to the results"),
                         2));
}

// Its faults.
void add_fault_rows(std::vector<ParamSpec>& t) {
  using S = Section;
  using T = ParamType;
  const json null;
  const auto none = std::nullopt;
  // Faults. Which kinds need a sender or a receiver, and the bound of each index (the exchange's
  // instances), are checked by input/exchange_only.cpp.
  t.push_back(
      binds(required(choices(P(S::fault, "kind", T::enumeration, "", null, none, none,
                               "receiver_close: the receiver closes early; rpc_error: the first RPC on "
                               "the channel answered at or after at_s fails; cancel: the query is "
                               "cancelled"),
                             {"receiver_close", "rpc_error", "cancel"})),
            &FaultSpec::kind));
  t.push_back(
      binds(required(P(S::fault, "at_s", T::number, "s", null, 0, 1e9, "simulated time of the fault")),
            &FaultSpec::at_s));
  t.push_back(binds(derived(P(S::fault, "sender", T::integer, "index", null, 0, kMaxInstances - 1,
                              "sender instance index (rpc_error)"),
                            "required for rpc_error"),
                    &FaultSpec::sender, -1));
  t.push_back(binds(derived(P(S::fault, "receiver", T::integer, "index", null, 0, kMaxInstances - 1,
                              "receiver instance index (receiver_close, rpc_error)"),
                            "required for receiver_close and rpc_error"),
                    &FaultSpec::receiver, -1));
}

} // namespace

void add_exchange_rows(std::vector<ParamSpec>& t) {
  add_kind_and_placement_rows(t);
  add_shape_rows(t);
  add_cost_and_order_rows(t);
  add_fault_rows(t);
}

} // namespace exsim::param_rows
