#include "models/run_fields.hpp"

#include "models/exchange/bound.hpp"
#include "models/exchange/partitioning.hpp"
#include "models/window/window_policy.hpp"

#include <cstddef>
#include <iterator>
#include <stdexcept>
#include <utility>

namespace exsim {

namespace {

// Each section's name and its place in the results document, in the order of FieldSection.
constexpr std::pair<const char*, const char*> kSectionNames[] = {
    {"document", ""},
    {"scenario", "scenario"},
    {"exchange", "exchanges[]"},
    {"sender", "exchanges[].sender_instances[]"},
    {"receiver", "exchanges[].receiver_instances[]"},
    {"k_window", "exchanges[].k_window"},
    {"query", "queries[]"},
    {"fragment", "queries[].fragments[]"},
    {"breakdown", "queries[].breakdown"},
    {"summary", "summary"},
    {"carried", ""},
};
constexpr const char* kTypeNames[] = {"integer", "number", "boolean", "string", "object", "array"};
static_assert(std::size(kSectionNames) == static_cast<size_t>(FieldSection::carried) + 1,
              "a name per section");
static_assert(std::size(kTypeNames) == static_cast<size_t>(FieldType::array) + 1, "a name per type");

} // namespace

const char* to_string(FieldSection s) {
  return kSectionNames[static_cast<size_t>(s)].first;
}
const char* section_path(FieldSection s) {
  return kSectionNames[static_cast<size_t>(s)].second;
}
const char* to_string(FieldType t) {
  return kTypeNames[static_cast<size_t>(t)];
}
std::vector<FieldSection> field_sections() {
  std::vector<FieldSection> out;
  for (size_t i = 0; i < std::size(kSectionNames); ++i)
    out.push_back(static_cast<FieldSection>(i));
  return out;
}

namespace {

// A member read by a row, named as it is spelt.
#define EXSIM_READS(Struct, member) FieldRead(MemberRead<Struct>{#member, &Struct::member})

using S = FieldSection;
using T = FieldType;

std::vector<std::string> bound_names() {
  std::vector<std::string> out;
  for (Bound b : {Bound::rpc_window, Bound::bandwidth, Bound::sender_cpu, Bound::receiver_cpu,
                  Bound::backpressure, Bound::none})
    out.push_back(to_string(b));
  return out;
}

std::vector<std::string> status_names() {
  return {to_string(ExchangeStatus::ok), to_string(ExchangeStatus::failed),
          to_string(ExchangeStatus::cancelled)};
}

std::vector<FieldSpec> build_table() {
  std::vector<FieldSpec> t;
  auto add = [&t](S section, std::string name, T type, std::string unit, std::string meaning,
                  std::vector<FieldRead> reads = {}) -> FieldSpec& {
    FieldSpec& f = t.emplace_back();
    f.section = section;
    f.name = std::move(name);
    f.type = type;
    f.unit = std::move(unit);
    f.meaning = std::move(meaning);
    f.reads = std::move(reads);
    return f;
  };
  const std::string adaptive_k = "an adaptive `rpcs_in_flight_policy`";
  const std::string filtered_query = "a query with runtime filters";
  const std::string filtered_fragment = "a fragment with a scan that has `runtime_filters`";

  // The top level.
  add(S::document, "exsim_version", T::string, "", "version of the simulator that produced the file");
  add(S::document, "scenario", T::object, "", "the scenario's `name`, `description` and `seed`");
  add(S::document, "settings", T::object, "",
      "every effective parameter after defaults and `--set` overrides: `seed`, `cluster`, `flags`, and per "
      "exchange its keys with defaults filled in, its effective `flags`, the derived executor and instance "
      "counts, and `rpcs_in_flight_per_channel_effective`");
  add(S::document, "exchanges", T::array, "", "one entry per exchange, in scenario order",
      {EXSIM_READS(QueryRun, exchanges)});
  add(S::document, "queries", T::array, "",
      "one entry per query, in scenario order: the whole queries (`queries[]` of the scenario) and the "
      "exchange-only groups named by their exchanges' `query` key");
  add(S::document, "summary", T::object, "", "figures over all exchanges and queries");

  add(S::scenario, "name", T::string, "", "the scenario's name (its file's, unless it names itself)");
  add(S::scenario, "description", T::string, "", "the scenario's description");
  add(S::scenario, "seed", T::integer, "", "the seed of its random draws");

  // exchanges[]
  add(S::exchange, "id", T::string, "", "the exchange's id, from the scenario");
  add(S::exchange, "query", T::string, "", "the query it belongs to, from the scenario");
  add(S::exchange, "partitioning", T::string, "", "its sender kind, from the scenario").choices =
      partitioning_names();
  add(S::exchange, "merging", T::boolean, "",
      "whether its receiver merges sorted streams, from the scenario");
  add(S::exchange, "k", T::integer, "RPCs", "effective RPCs in flight per channel");
  add(S::exchange, "k_configured", T::integer, "RPCs",
      "the `rpcs_in_flight_per_channel` the exchange was configured with (global flag, `--set`, or its own "
      "`flags`)");
  add(S::exchange, "k_reason", T::string, "",
      "when `k` differs from `k_configured`, why (empty otherwise): the configured K applies to non-merging "
      "HASH_PARTITIONED and RANDOM senders only (`models/exchange/sender_config.*`); merging exchanges keep "
      "K=1 "
      "because a sender's batches must arrive in order, the other kinds unless they set K in their own "
      "`flags`");
  add(S::exchange, "buffer_bytes", T::integer, "bytes", "effective `data_stream_sender_buffer_size`");
  add(S::exchange, "status", T::string, "",
      "`ok`, `failed` (an RPC error; `error` is the first one) or `cancelled`",
      {EXSIM_READS(ExchangeRun, status)})
      .choices = status_names();
  add(S::exchange, "error", T::string, "", "why it failed or was cancelled (empty when `ok`)",
      {EXSIM_READS(ExchangeRun, error)});
  add(S::exchange, "start_s", T::number, "s", "when the exchange started (its dependencies done)",
      {EXSIM_READS(ExchangeRun, start_s)})
      .workload_clock = true;
  add(S::exchange, "end_s", T::number, "s", "when the exchange ended (every instance done)",
      {EXSIM_READS(ExchangeRun, end_s)})
      .workload_clock = true;
  add(S::exchange, "duration_s", T::number, "s", "`end_s` - `start_s`");
  add(S::exchange, "senders", T::integer, "", "sender instances");
  add(S::exchange, "receivers", T::integer, "", "receiver instances");
  add(S::exchange, "channels", T::integer, "", "senders x receivers");
  add(S::exchange, "slowest_sender", T::integer, "",
      "the sender instance with the largest `InactiveTotalTime_s`");
  add(S::exchange, "slowest_sender_blocked_s", T::number, "s", "that sender's `InactiveTotalTime_s`");
  add(S::exchange, "rpcs", T::integer, "RPCs", "TransmitData RPCs sent");
  add(S::exchange, "eos_rpcs", T::integer, "RPCs", "EndDataStream RPCs sent");
  add(S::exchange, "bytes_sent", T::integer, "bytes", "TransmitData payload bytes on the wire");
  add(S::exchange, "mean_rpc_bytes", T::number, "bytes", "`bytes_sent` per TransmitData RPC");
  add(S::exchange, "rows_sent", T::integer, "rows",
      "rows the senders were given (Impala's `RowsSent`: each input row once, whatever channels it goes to)");
  add(S::exchange, "rows_dropped", T::integer, "rows",
      "rows not transmitted because their receiver had closed");
  add(S::exchange, "rpcs_deferred", T::integer, "RPCs", "RPCs the receivers deferred");
  add(S::exchange, "pushed_back", T::boolean, "",
      "true when any receiver of the exchange deferred at least one RPC (its buffer was full, or RPCs were "
      "already waiting): the simulator's own receiver state decides it");
  add(S::exchange, "receivers_closed", T::integer, "", "receivers that closed early");
  add(S::exchange, "slots_in_flight_after_teardown", T::integer, "RPCs",
      "RPC slots still in flight when senders finished (always 0)");
  add(S::exchange, "bound", T::string, "",
      "what limited the exchange: `rpc_window`, `bandwidth`, `sender_cpu`, `receiver_cpu`, `backpressure`, "
      "or "
      "`none` for an exchange cancelled or failed before its first TransmitData RPC (rules in "
      "`models/exchange/bound.hpp`)")
      .choices = bound_names();
  add(S::exchange, "memory_estimate_bytes", T::integer, "bytes",
      "planner estimate for all sender instances: senders x channels x (K+1) x 2 x batch (K_max + 1 under an "
      "adaptive policy)");
  add(S::exchange, "memory_estimate_bytes_per_sender", T::integer, "bytes",
      "`memory_estimate_bytes` per sender instance");
  add(S::exchange, "receiver_memory_estimate_bytes", T::integer, "bytes",
      "ExchangeNode estimate for all receiver instances");
  add(S::exchange, "peak_sender_bytes", T::integer, "bytes",
      "peak bytes held at once by the simulated sender collectors and in-flight batches",
      {EXSIM_READS(ExchangeRun, sender_bytes_peak)});
  add(S::exchange, "peak_receiver_bytes", T::integer, "bytes",
      "peak bytes held at once by receiver queues and deferred batches",
      {EXSIM_READS(ExchangeRun, receiver_bytes_peak)});
  add(S::exchange, "sender_instances", T::array, "", "one entry per sender instance, in index order",
      {EXSIM_READS(ExchangeRun, senders)});
  add(S::exchange, "receiver_instances", T::array, "", "one entry per receiver instance, in index order",
      {EXSIM_READS(ExchangeRun, receivers)});
  add(S::exchange, "k_window", T::object, "", "what K did under an adaptive policy").when = adaptive_k;
  add(S::exchange, "expected", T::object, "",
      "measured counters to compare with, keyed by the simulated names (`{\"RpcSuccess\": 93070, "
      "\"InactiveTotalTime_s\": 3.2}`); the summary prints measured, simulated and their ratio. A name is "
      "looked up on the exchange itself, else over its instances: summed for counts and bytes, the largest "
      "for times (`_s`, the slowest instance)")
      .when = "an exchange the scenario gives `expected`";

  // exchanges[].sender_instances[]
  add(S::sender, "index", T::integer, "", "the sender instance");
  add(S::sender, "host", T::integer, "", "the host it runs on", {EXSIM_READS(SenderCounters, host)});
  add(S::sender, "InactiveTotalTime_s", T::number, "s", "blocked waiting for a slot",
      {EXSIM_READS(SenderCounters, InactiveTotalTime)});
  add(S::sender, "SerializeBatchTime_s", T::number, "s", "serializing (and compressing) batches",
      {EXSIM_READS(SenderCounters, SerializeBatchTime)});
  add(S::sender, "CpuTime_s", T::number, "s",
      "CPU time of the fragment thread that runs the sender, its operators included",
      {EXSIM_READS(SenderCounters, CpuTime)});
  add(S::sender, "RpcNetworkTime_s", T::number, "s", "RPC time minus receiver time, summed over its RPCs",
      {EXSIM_READS(SenderCounters, RpcNetworkTime)});
  add(S::sender, "RpcRecvrTime_s", T::number, "s", "time its RPCs spent at the receiver, summed",
      {EXSIM_READS(SenderCounters, RpcRecvrTime)});
  add(S::sender, "RpcSuccess", T::integer, "RPCs", "RPCs answered without error",
      {EXSIM_READS(SenderCounters, RpcSuccess)});
  add(S::sender, "RpcFailure", T::integer, "RPCs", "RPCs that failed",
      {EXSIM_READS(SenderCounters, RpcFailure)});
  add(S::sender, "TransmitDataRpcs", T::integer, "RPCs", "TransmitData RPCs sent",
      {EXSIM_READS(SenderCounters, TransmitDataRpcs)});
  add(S::sender, "EosSent", T::integer, "RPCs", "EndDataStream RPCs sent",
      {EXSIM_READS(SenderCounters, EosSent)});
  add(S::sender, "TotalBytesSent", T::integer, "bytes", "TransmitData payload bytes on the wire",
      {EXSIM_READS(SenderCounters, TotalBytesSent)});
  add(S::sender, "UncompressedRowBatchSize", T::integer, "bytes",
      "total deserialized size: uncompressed tuple data plus 8 bytes per tuple pointer, as Impala counts it",
      {EXSIM_READS(SenderCounters, UncompressedRowBatchSize)});
  add(S::sender, "NetworkThroughput_Bps", T::number, "B/s",
      "`TotalBytesSent` / `RpcNetworkTime_s` (0 without network time)");
  add(S::sender, "RowsSent", T::integer, "rows", "input rows, counted once",
      {EXSIM_READS(SenderCounters, RowsSent)});
  add(S::sender, "RowsDropped", T::integer, "rows", "rows not transmitted because their receiver had closed",
      {EXSIM_READS(SenderCounters, RowsDropped)});
  add(S::sender, "PeakBytes", T::integer, "bytes", "peak bytes held by its collectors and in-flight batches",
      {EXSIM_READS(SenderCounters, PeakBytes)});
  add(S::sender, "slots_in_flight_after_teardown", T::integer, "RPCs",
      "RPC slots still in flight when it finished (always 0)",
      {EXSIM_READS(SenderCounters, slots_in_flight_after_teardown)});
  add(S::sender, "error", T::string, "", "its first RPC error (empty when none)",
      {EXSIM_READS(SenderCounters, error)});
  add(S::sender, "end_s", T::number, "s", "when it ended", {EXSIM_READS(SenderCounters, end_s)})
      .workload_clock = true;

  // exchanges[].receiver_instances[]
  add(S::receiver, "index", T::integer, "", "the receiver instance");
  add(S::receiver, "host", T::integer, "", "the host it runs on", {EXSIM_READS(ReceiverCounters, host)});
  add(S::receiver, "TotalBytesReceived", T::integer, "bytes", "payload bytes received",
      {EXSIM_READS(ReceiverCounters, TotalBytesReceived)});
  add(S::receiver, "TotalBatchesReceived", T::integer, "batches", "batches received",
      {EXSIM_READS(ReceiverCounters, TotalBatchesReceived)});
  add(S::receiver, "TotalBatchesEnqueued", T::integer, "batches", "batches put in its queue on arrival",
      {EXSIM_READS(ReceiverCounters, TotalBatchesEnqueued)});
  add(S::receiver, "TotalRPCsDeferred", T::integer, "RPCs", "RPCs it deferred",
      {EXSIM_READS(ReceiverCounters, TotalRPCsDeferred)});
  add(S::receiver, "DeferredQueueSize", T::integer, "RPCs", "most RPCs deferred at once (peak)",
      {EXSIM_READS(ReceiverCounters, DeferredQueueSize)});
  add(S::receiver, "TotalHasDeferredRPCsTime_s", T::number, "s", "time it held at least one deferred RPC",
      {EXSIM_READS(ReceiverCounters, TotalHasDeferredRPCsTime)});
  add(S::receiver, "DeserializeRowBatchTime_s", T::number, "s", "deserializing batches",
      {EXSIM_READS(ReceiverCounters, DeserializeRowBatchTime)});
  add(S::receiver, "TotalEosReceived", T::integer, "RPCs", "EndDataStream RPCs received",
      {EXSIM_READS(ReceiverCounters, TotalEosReceived)});
  add(S::receiver, "DataWaitTime_s", T::number, "s", "time its reader waited for a batch",
      {EXSIM_READS(ReceiverCounters, DataWaitTime)});
  add(S::receiver, "FirstBatchWaitTime_s", T::number, "s", "time its reader waited for the first batch",
      {EXSIM_READS(ReceiverCounters, FirstBatchWaitTime)});
  add(S::receiver, "TotalBytesDequeued", T::integer, "bytes", "bytes its reader took from the queue",
      {EXSIM_READS(ReceiverCounters, TotalBytesDequeued)});
  add(S::receiver, "RowsDequeued", T::integer, "rows", "rows its reader took from the queue",
      {EXSIM_READS(ReceiverCounters, RowsDequeued)});
  add(S::receiver, "ConsumerTime_s", T::number, "s",
      "CPU time of the thread reading the exchange, while it read it",
      {EXSIM_READS(ReceiverCounters, ConsumerTime)});
  add(S::receiver, "PeakBytes", T::integer, "bytes", "peak bytes held by its queue and deferred batches",
      {EXSIM_READS(ReceiverCounters, PeakBytes)});
  add(S::receiver, "closed", T::boolean, "", "whether it closed early",
      {EXSIM_READS(ReceiverCounters, closed)});
  add(S::receiver, "end_s", T::number, "s", "when it ended", {EXSIM_READS(ReceiverCounters, end_s)})
      .workload_clock = true;

  // exchanges[].k_window
  add(S::k_window, "policy", T::string, "", "the `rpcs_in_flight_policy`").choices = window_policy_names();
  add(S::k_window, "k_start", T::integer, "RPCs", "where each channel's K starts");
  add(S::k_window, "k_cap", T::integer, "RPCs", "K_max");
  add(S::k_window, "k_mean", T::number, "RPCs",
      "K integrated over each channel's life, from its first RPC to its sender's end, over the sum of those "
      "lives",
      {EXSIM_READS(SenderCounters, k_area), EXSIM_READS(SenderCounters, k_span_s)});
  add(S::k_window, "k_max", T::integer, "RPCs", "the largest K any channel was given",
      {EXSIM_READS(SenderCounters, k_max)});
  add(S::k_window, "series", T::array, "",
      "per channel `sender`, `receiver`, `t_s` and `k`: the change points (K from each time on, times on the "
      "workload's clock)",
      {EXSIM_READS(SenderCounters, k_series)})
      .when = "an exchange with `rpcs_in_flight_series`";

  // queries[]
  add(S::query, "query", T::string, "", "its name");
  add(S::query, "exchanges", T::integer, "", "its number of exchanges");
  add(S::query, "start_s", T::number, "s",
      "a whole query: its start (with `query_order` sequential, when the previous one ended); an "
      "exchange-only "
      "group: its first exchange's start",
      {EXSIM_READS(QueryRun, start_s)})
      .workload_clock = true;
  add(S::query, "end_s", T::number, "s",
      "a whole query: when its root fragment returned its last row; an exchange-only group: its last "
      "exchange's "
      "end",
      {EXSIM_READS(QueryRun, end_s)})
      .workload_clock = true;
  add(S::query, "exchange_span_s", T::number, "s",
      "from the first of its exchanges' starts to the last of their ends");
  add(S::query, "runtime_s", T::number, "s", "`end_s` - `start_s`");
  add(S::query, "status", T::string, "", "`ok`, or the first non-ok status among the query and its exchanges",
      {EXSIM_READS(QueryRun, status)})
      .choices = status_names();
  add(S::query, "error", T::string, "", "the reason of that status (empty when `ok`)",
      {EXSIM_READS(QueryRun, error)});
  add(S::query, "breakdown", T::object, "",
      "seconds along the query's critical path, by part (`queries[].breakdown`), summing to `runtime_s`",
      {EXSIM_READS(QueryRun, breakdown)});
  add(S::query, "fragments", T::array, "", "one entry per fragment, in scenario order",
      {EXSIM_READS(QueryRun, fragments)})
      .when = "a whole query";
  add(S::query, "rows_passed_before_filters", T::integer, "rows",
      "rows its scans passed only because a filter had not arrived yet (they cost what any row costs "
      "until the join that built the filter drops them), summed over its fragments")
      .when = filtered_query;
  add(S::query, "runtime_filter_timeouts", T::integer, "",
      "the scan instances that began reading with a filter missing (after `runtime_filter_wait_time_ms`), "
      "summed over its fragments")
      .when = filtered_query;
  add(S::query, "expected", T::object, "",
      "measured values to compare with (a name is looked up on the query, else summed over its exchanges)")
      .when = "a query the scenario gives `expected`";

  // queries[].fragments[]
  add(S::fragment, "id", T::string, "", "the fragment's id, from the scenario");
  add(S::fragment, "instances", T::integer, "", "its instances", {EXSIM_READS(FragmentStats, instances)});
  add(S::fragment, "cpu_s", T::number, "s", "CPU time of its threads, scanner threads included",
      {EXSIM_READS(FragmentStats, cpu_s)});
  add(S::fragment, "end_s", T::number, "s", "its last instance's end", {EXSIM_READS(FragmentStats, end_s)})
      .workload_clock = true;
  add(S::fragment, "rows_passed_before_filters", T::integer, "rows",
      "rows its scans passed only because a filter had not arrived yet",
      {EXSIM_READS(FragmentStats, rows_passed_before_filters)})
      .when = filtered_fragment;
  add(S::fragment, "runtime_filter_timeouts", T::integer, "",
      "its scan instances that began reading with a filter missing",
      {EXSIM_READS(FragmentStats, runtime_filter_timeouts)})
      .when = filtered_fragment;

  // queries[].breakdown: the critical path's parts (models/core/critical_path.cpp).
  for (const PathPartInfo& p : path_parts()) {
    FieldSpec& f = add(S::breakdown, p.key, T::number, "s", p.meaning);
    f.label = p.label;
    f.group = p.group;
    if (p.part == PathPart::runtime_filter_wait) f.when = filtered_query;
  }

  // summary
  add(S::summary, "exchanges", T::integer, "", "exchanges");
  add(S::summary, "queries", T::integer, "", "entries of `queries`");
  add(S::summary, "runtime_s_total", T::number, "s",
      "the queries' `runtime_s` summed (the makespan when there is no query)");
  add(S::summary, "breakdown_s_total", T::object, "s", "the queries' breakdowns summed, part by part");
  add(S::summary, "hash_rpcs", T::integer, "RPCs", "TransmitData RPCs of HASH_PARTITIONED exchanges");
  add(S::summary, "hash_mean_rpc_bytes", T::number, "bytes", "their mean bytes on the wire");
  add(S::summary, "nonpushback_hash_exchanges", T::integer, "",
      "HASH_PARTITIONED exchanges that did not push back");
  add(S::summary, "nonpushback_slowest_sender_blocked_s_total", T::number, "s",
      "their `slowest_sender_blocked_s` summed");
  add(S::summary, "exchanges_failed", T::integer, "", "exchanges whose status is not `ok`");
  add(S::summary, "rpcs", T::integer, "RPCs", "TransmitData RPCs over all exchanges");
  add(S::summary, "eos_rpcs", T::integer, "RPCs", "EndDataStream RPCs over all exchanges");
  add(S::summary, "bytes_sent", T::integer, "bytes", "payload bytes over all exchanges");
  add(S::summary, "mean_rpc_bytes", T::number, "bytes", "`bytes_sent` / `rpcs`");
  add(S::summary, "slowest_sender_blocked_s_total", T::number, "s",
      "sum over exchanges of `slowest_sender_blocked_s`");
  add(S::summary, "rpcs_deferred", T::integer, "RPCs", "RPCs deferred over all exchanges");
  add(S::summary, "memory_estimate_bytes_total", T::integer, "bytes",
      "sum of the exchanges' sender estimates");
  add(S::summary, "makespan_s", T::number, "s", "when the last exchange or query ended");

  // Read by the writer, written under no name of their own.
  add(S::carried, "SenderCounters.start_s", T::number, "s",
      "when the sender started (the results give the exchange's start)",
      {EXSIM_READS(SenderCounters, start_s)});
  add(S::carried, "ReceiverCounters.start_s", T::number, "s",
      "when the receiver started (the results give the exchange's start)",
      {EXSIM_READS(ReceiverCounters, start_s)});
  add(S::carried, "QueryRun.has_runtime_filters", T::boolean, "",
      "whether the query lists the runtime-filter wait and counts",
      {EXSIM_READS(QueryRun, has_runtime_filters)});
  add(S::carried, "QueryRun.clock_offset_s", T::number, "s",
      "where the query's clock starts on the workload's: added to its times",
      {EXSIM_READS(QueryRun, clock_offset_s)});
  return t;
}

#undef EXSIM_READS

} // namespace

const std::vector<FieldSpec>& field_table() {
  static const std::vector<FieldSpec> table = build_table();
  return table;
}

std::vector<const FieldSpec*> fields_of(FieldSection s) {
  std::vector<const FieldSpec*> out;
  for (const FieldSpec& f : field_table())
    if (f.section == s) out.push_back(&f);
  return out;
}

const FieldSpec& field(FieldSection s, const std::string& name) {
  for (const FieldSpec& f : field_table())
    if (f.section == s && f.name == name) return f;
  throw std::logic_error(std::string("the results field table has no field ") + to_string(s) + "." + name);
}

} // namespace exsim
