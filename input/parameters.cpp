#include "input/parameters.hpp"

#include "input/remote_scan.hpp"
#include "input/rules.hpp"

#include "models/exchange/partitioning.hpp"
#include "models/network/network_model.hpp"
#include "models/window/window_policy.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <stdexcept>
#include <type_traits>

namespace exsim {

using nlohmann::json;

namespace {

// Each section's name in parameters_json() and its title in `exsim params` and error messages.
struct SectionName {
  Section section;
  const char* key;
  const char* title;
};

constexpr SectionName kSectionNames[] = {
    {Section::scenario, "scenario", "scenario"},
    {Section::cluster, "cluster", "cluster"},
    {Section::flags, "flags", "flags"},
    {Section::costs, "costs", "costs"},
    {Section::query_rows, "query_rows", "queries.<query> (schema 1)"},
    {Section::query, "query", "queries[]"},
    {Section::plan, "plan", "queries[].parallel"},
    {Section::fragment, "fragment", "queries[].fragments[]"},
    {Section::sink, "sink", "queries[].fragments[].sink"},
    {Section::op, "op", "operators (queries[].fragments[].root and below)"},
    {Section::exchange, "exchange", "exchanges[] and queries[].exchanges[]"},
    {Section::fault, "fault", "exchanges[].faults[]"},
    {Section::remote_scan, "remote_scan", "remote_scan (\"kind\": \"remote_scan\")"},
    {Section::remote_scan_cluster, "remote_scan.cluster", "remote_scan: cluster"},
    {Section::remote_scan_s3, "remote_scan.s3", "remote_scan: s3"},
    {Section::remote_scan_splits, "remote_scan.splits", "remote_scan: splits"},
    {Section::remote_scan_prefetch, "remote_scan.prefetch", "remote_scan: prefetch"},
    {Section::remote_scan_scan, "remote_scan.scan", "remote_scan: scan"}};

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

const SectionName* section_name(Section s) {
  for (const SectionName& n : kSectionNames)
    if (n.section == s) return &n;
  return nullptr;
}

} // namespace

const char* to_string(Section s) {
  const SectionName* n = section_name(s);
  return n != nullptr ? n->title : "?";
}

const char* section_key(Section s) {
  const SectionName* n = section_name(s);
  return n != nullptr ? n->key : "?";
}

const char* to_string(ParamType t) {
  switch (t) {
  case ParamType::integer:
    return "integer";
  case ParamType::number:
    return "number";
  case ParamType::boolean:
    return "boolean";
  case ParamType::string:
    return "string";
  case ParamType::enumeration:
    return "string";
  case ParamType::object:
    return "object";
  case ParamType::number_array:
    return "array of numbers";
  case ParamType::string_array:
    return "array of strings";
  case ParamType::array:
    return "array";
  }
  return "?";
}

namespace {

ParamSpec P(Section s, std::string name, ParamType t, std::string unit, json def, std::optional<double> min,
            std::optional<double> max, std::string description) {
  ParamSpec p;
  p.section = s;
  p.name = std::move(name);
  p.type = t;
  p.unit = std::move(unit);
  p.default_value = std::move(def);
  p.min = min;
  p.max = max;
  p.description = std::move(description);
  return p;
}

ParamSpec required(ParamSpec p) {
  p.required = true;
  return p;
}
ParamSpec derived(ParamSpec p, std::string how) {
  p.derived = std::move(how);
  return p;
}
ParamSpec exclusive_min(ParamSpec p) {
  p.min_exclusive = true;
  return p;
}
ParamSpec choices(ParamSpec p, std::vector<std::string> values) {
  p.choices = std::move(values);
  return p;
}
ParamSpec every_kind(ParamSpec p) {
  p.every_kind = true;
  return p;
}

ParamSpec only_until(ParamSpec p, int version, std::string replaced_by) {
  p.until = version;
  p.replaced_by = std::move(replaced_by);
  return p;
}
ParamSpec only_since(ParamSpec p, int version) {
  p.since = version;
  return p;
}
ParamSpec standalone(ParamSpec p) {
  p.standalone_only = true;
  return p;
}
ParamSpec daemon_wide(ParamSpec p) {
  p.daemon_wide = true;
  return p;
}
ParamSpec listed_when_set(ParamSpec p) {
  p.listed_when_set = true;
  return p;
}

// The row sets `member` of T: its JSON value converted by the member's type, an enumeration by the
// value's index in the row's choices (the enum lists its values in that order). A row without a
// default sets `absent` when the key is not given (by default the member's zero value: 0, "", an
// empty array, false, the first choice).
template <class T, class V> ParamSpec binds(ParamSpec p, V T::*member, std::type_identity_t<V> absent = V{}) {
  FieldBinding<T> b;
  if constexpr (std::is_enum_v<V>) {
    b.set = [member, names = p.choices](const json& v, T& out) {
      const auto it = std::find(names.begin(), names.end(), v.get<std::string>());
      if (it == names.end())
        throw std::logic_error("bind_fields: a value outside the row's choices: " + v.dump());
      out.*member = static_cast<V>(it - names.begin());
    };
    b.get = [member, names = p.choices](const T& in) {
      return json(names.at(static_cast<size_t>(in.*member)));
    };
  } else {
    b.set = [member](const json& v, T& out) { out.*member = v.get<V>(); };
    b.get = [member, integer = p.type == ParamType::integer](const T& in) {
      if constexpr (std::is_arithmetic_v<V>)
        return integer ? json(static_cast<int64_t>(in.*member)) : json(in.*member);
      else
        return json(in.*member);
    };
  }
  const T probe{};
  b.offset = static_cast<size_t>(reinterpret_cast<const char*>(&(probe.*member)) -
                                 reinterpret_cast<const char*>(&probe));
  if (p.default_value.is_null()) {
    T t{};
    t.*member = absent;
    b.absent = b.get(t);
  }
  p.binds = std::move(b);
  return p;
}

// A row in one unit setting a member in another: the member holds the row's value times `scale`
// (a row in ms setting seconds: 1e-3).
template <class T> ParamSpec binds_scaled(ParamSpec p, double T::*member, double scale) {
  p = binds(std::move(p), member);
  auto& b = std::get<FieldBinding<T>>(p.binds);
  b.set = [member, scale](const json& v, T& out) { out.*member = v.get<double>() * scale; };
  b.get = [member, scale](const T& in) { return json(in.*member / scale); };
  return p;
}

// Bandwidths the model computes with: from 1 Mbit/s (a transfer of the largest exchange ends
// within the doubles' precision) to 100 Tbit/s.
constexpr double kMinGbps = 1e-3;
constexpr double kMaxGbps = 1e5;
// A relative weight: a million instances of the largest still sum to a finite number, and a
// share per instance stays representable.
constexpr double kMaxWeight = 1e15;

std::vector<ParamSpec> build_table() {
  using S = Section;
  using T = ParamType;
  const json null;
  const auto none = std::nullopt;
  std::vector<ParamSpec> t;
  // Scenario (top level).
  t.push_back(every_kind(required(
      P(S::scenario, "schema_version", T::integer, "", null, 1, kSchemaVersion,
        "scenario format version: 2 (1 is still read; `exsim migrate` rewrites a version 1 file)"))));
  t.push_back(every_kind(choices(
      P(S::scenario, "kind", T::enumeration, "", "exchange", none, none,
        "what the scenario simulates: exchange (Impala's exchange senders and receivers, the keys of this "
        "section) or remote_scan (executors reading splits from S3 through a bounded prefetch, the "
        "remote_scan sections)"),
      {"exchange", "remote_scan"})));
  t.push_back(every_kind(
      derived(P(S::scenario, "name", T::string, "", null, none, none, "label copied to the results"),
              "the file name without .json")));
  t.push_back(every_kind(P(S::scenario, "description", T::string, "", "", none, none,
                           "one line saying what the scenario is for")));
  t.push_back(every_kind(P(S::scenario, "seed", T::integer, "", 1, 0, none,
                           "seed of every random stream (one per sender instance, or per executor of a "
                           "remote scan)")));
  t.push_back(every_kind(P(S::scenario, "provenance", T::object, "", json::object(), none, none,
                           "free-form record of where the numbers come from; not read by the simulator")));
  t.push_back(choices(
      P(S::scenario, "query_order", T::enumeration, "", "concurrent", none, none,
        "concurrent: every query starts at once, exchanges of the exchange-only form unless ordered by "
        "`after`; sequential: queries run one after another in file order (exchange-only ones grouped by "
        "their `query` key, first), each alone on the cluster, so each can be simulated in its own process "
        "(`exsim run --jobs N`; the results do not depend on N)"),
      {"concurrent", "sequential"}));
  t.push_back(only_until(P(S::scenario, "query_overhead_s", T::number, "s", 0, 0, 1e6,
                           "schema 1's fixed time of every query outside its exchanges (refused: that time is simulated)"),
                         1, "costs.query_startup_s"));
  t.push_back(only_until(
      P(S::scenario, "query_work_ns_per_row", T::number, "ns", 0, 0, 1e6,
        "schema 1's CPU per row of a query's work outside its exchanges (refused: that time is simulated)"),
      1, "the operator costs in `costs`"));
  t.push_back(only_until(P(S::scenario, "query_scanner_threads", T::integer, "threads", 0, 0, 1024,
                           "schema 1's scanner threads of the formula for the time outside the exchanges (refused)"),
                         1, "flags.num_scanner_threads"));
  t.push_back(only_until(P(S::scenario, "queries", T::object, "", json::object(), none, none,
                           "schema 1's per-query rows of the formula for the time outside the exchanges (refused)"),
                         1, "queries[] with fragments and operators"));
  t.push_back(only_since(P(S::scenario, "queries", T::array, "", json::array(), none, none,
                           "whole queries: fragments with their operators, and the exchanges between them"),
                         2));
  t.push_back(P(S::scenario, "cluster", T::object, "", json::object(), none, none,
                "the executors and their network"));
  t.push_back(P(S::scenario, "flags", T::object, "", json::object(), none, none,
                "Impala flags for every exchange (an exchange may override them)"));
  t.push_back(only_since(P(S::scenario, "costs", T::object, "", json::object(), none, none,
                           "CPU costs of the operator classes and the start-up of a query"),
                         2));
  t.push_back(P(S::scenario, "exchange_defaults", T::object, "", json::object(), none, none,
                "exchange keys (except id and faults) applied to every exchange, in queries too, that does "
                "not set them"));
  t.push_back(only_until(
      required(P(S::scenario, "exchanges", T::array, "", null, 1, none, "the exchanges to simulate")), 1, ""));
  t.push_back(only_since(P(S::scenario, "exchanges", T::array, "", json::array(), none, none,
                           "exchange-only form: exchanges simulated alone, each between a producer and a "
                           "consumer of given CPU costs"),
                         2));

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
  t.push_back(binds(choices(P(S::cluster, "network_model", T::enumeration, "", "exsim", none, none,
                              network_models_meaning()),
                            network_model_names()),
                    &ClusterSpec::network_model));

  // Flags.
  t.push_back(binds(P(S::flags, "data_stream_sender_buffer_size", T::integer, "bytes", 16384, 1, 1LL << 31,
                      "hash collector size: rows per batch = max(1, this / fixed row bytes)"),
                    &Flags::data_stream_sender_buffer_size));
  t.push_back(binds(P(S::flags, "exchg_node_buffer_size_bytes", T::integer, "bytes", 10485760, 1, 1LL << 40,
                      "receiver buffer limit per receiver instance (a merging receiver divides it among the "
                      "senders that have not ended their stream, IMPALA-13475)"),
                    &Flags::exchg_node_buffer_size_bytes));
  t.push_back(binds(P(S::flags, "batch_size", T::integer, "rows", 1024, 1, 1 << 20,
                      "rows per row batch (RANDOM and broadcast send whole batches)"),
                    &Flags::batch_size));
  t.push_back(
      binds(P(S::flags, "mt_dop", T::integer, "instances per executor", 0, 0, 64,
              "fragment instances per executor; 0 runs one; > 0 runs a query's `parallel` plan when it "
              "has one"),
            &Flags::mt_dop));
  t.push_back(
      binds(P(S::flags, "rpcs_in_flight_per_channel", T::integer, "RPCs (K)", 1, 1, 64,
              "TransmitData RPCs a channel may keep in flight; applies to non-merging HASH_PARTITIONED "
              "and RANDOM senders unless an exchange sets it in its own flags"),
            &Flags::rpcs_in_flight_per_channel));
  // Listed in the settings only when set (as the runtime filter flags), so that results of
  // scenarios without them keep their settings as they were.
  t.push_back(
      binds(listed_when_set(choices(
                P(S::flags, "rpcs_in_flight_policy", T::enumeration, "", "fixed", none, none,
                  "how a channel's K moves at run time (a what-if: Impala has no such flag): fixed keeps "
                  "rpcs_in_flight_per_channel; bdp grows it from a bandwidth-delay-product estimate (gRPC's "
                  "BDP estimator) up to rpcs_in_flight_max; gradient follows the round trip against its "
                  "minimum (concurrency-limits' GradientLimit) between 1 and rpcs_in_flight_max. Both start "
                  "at rpcs_in_flight_per_channel and apply where K does"),
                window_policy_names())),
            &Flags::rpcs_in_flight_policy));
  t.push_back(
      binds(listed_when_set(
                P(S::flags, "rpcs_in_flight_max", T::integer, "RPCs (K_max)", 8, 1, 64,
                  "an adaptive policy's cap on K (a what-if); its channels budget K_max + 1 batches in "
                  "the memory estimate. 8: one channel's share of a 12.5 Gbit/s NIC over a 390 us round "
                  "trip in 16 KiB batches with 5 receivers (37 batches / 5)")),
            &Flags::rpcs_in_flight_max));
  t.push_back(binds(
      listed_when_set(P(S::flags, "rpcs_in_flight_series", T::boolean, "", false, none, none,
                        "results list each channel's K over time under an adaptive policy (change points, "
                        "`k_window.series`)")),
      &Flags::rpcs_in_flight_series));
  t.push_back(binds(P(S::flags, "compression", T::boolean, "", true, none, none,
                      "LZ4-compress batches sent to another daemon"),
                    &Flags::compression));
  t.push_back(
      binds(daemon_wide(P(S::flags, "datastream_service_num_svc_threads", T::integer, "threads", 0, 0, 1024,
                          "service threads per daemon, deserializing admitted batches; 0 means one per "
                          "logical CPU")),
            &Flags::datastream_service_num_svc_threads));
  t.push_back(binds(
      daemon_wide(P(S::flags, "datastream_service_num_deserialization_threads", T::integer, "threads", 16, 1,
                    1024, "threads per daemon deserializing deferred batches once room frees up")),
      &Flags::datastream_service_num_deserialization_threads));
  t.push_back(binds(
      choices(P(S::flags, "eos_flush", T::enumeration, "", "pipelined", none, none,
                "end of stream: pipelined (last batches, wait, EOS to all, wait) or serial (per channel)"),
              {"pipelined", "serial"}),
      &Flags::eos_flush));
  t.push_back(
      binds(only_since(P(S::flags, "num_scanner_threads", T::integer, "threads", 0, 0, 1024,
                         "scanner threads per scan node instance at mt_dop 0; 0 means one per logical "
                         "CPU (with mt_dop > 0 each instance scans on its own thread)"),
                       2),
            &Flags::num_scanner_threads));
  // Listed in the settings only when set, so that results of scenarios without runtime filters
  // keep their settings as they were.
  t.push_back(binds(
      only_since(listed_when_set(P(S::flags, "runtime_filter_wait_time_ms", T::integer, "ms", 1000, 0, 1e7,
                                   "how long a scan waits for its runtime filters before it reads, counted "
                                   "from the query's start on its executor (Impala's query option; its 0 "
                                   "means the daemon's default, 1000 ms; here 0 means not waiting)")),
                 2),
      &Flags::runtime_filter_wait_time_ms));
  t.push_back(binds(
      only_since(
          listed_when_set(choices(P(S::flags, "runtime_filter_mode", T::enumeration, "", "GLOBAL", none, none,
                                    "which runtime filters scans apply (Impala's query option): GLOBAL "
                                    "every one, LOCAL only those of a join in the scan's own fragment, "
                                    "OFF none; a scan passes 1/keep more rows for a filter it does not "
                                    "apply, and does not wait for it"),
                                  {"OFF", "LOCAL", "GLOBAL"})),
          2),
      &Flags::runtime_filter_mode));
  t.push_back(binds(
      only_since(
          listed_when_set(P(S::flags, "runtime_bloom_filter_size", T::integer, "bytes", 1048576, 0, 1LL << 30,
                            "bytes of a runtime filter on its way to the coordinator and from it "
                            "(Impala's RUNTIME_BLOOM_FILTER_SIZE default; its planner sizes a filter "
                            "by the build's distinct values between 1 MiB and 16 MiB)")),
          2),
      &Flags::runtime_bloom_filter_size));

  // Costs (ns of one hardware thread running alone on a core).
  struct OperatorCost {
    const char* name;
    double OperatorCosts::*member;
    const char* what;
  };
  for (auto [name, member, what] : std::vector<OperatorCost>{
           {"scan_ns_per_row", &OperatorCosts::scan_ns_per_row,
            "CPU per row a scan reads (before its predicates)"},
           {"join_build_ns_per_row", &OperatorCosts::join_build_ns_per_row,
            "CPU per row inserted into a join's hash table"},
           {"join_probe_ns_per_row", &OperatorCosts::join_probe_ns_per_row,
            "CPU per probe-side row of a join"},
           {"aggregate_ns_per_row", &OperatorCosts::aggregate_ns_per_row,
            "CPU per input row of an aggregation (streaming or not)"},
           {"sort_ns_per_row", &OperatorCosts::sort_ns_per_row, "CPU per input row of a sort or top-n"},
           {"analytic_ns_per_row", &OperatorCosts::analytic_ns_per_row,
            "CPU per input row of an analytic evaluation"},
           {"other_ns_per_row", &OperatorCosts::other_ns_per_row,
            "CPU per input row of select, union, limit"}})
    t.push_back(binds(only_since(P(S::costs, name, T::number, "ns", 0, 0, 1e9, what), 2), member));
  t.push_back(binds(only_since(P(S::costs, "query_startup_s", T::number, "s", 0, 0, 1e6,
                                 "time of every query before its fragments start (planning, admission, "
                                 "coordinator start-up); a delay, not CPU on the executors"),
                               2),
                    &OperatorCosts::query_startup_s));
  t.push_back(binds(only_since(P(S::costs, "codegen_s_per_fragment", T::number, "s", 0, 0, 1e6,
                                 "CPU time once per fragment per executor that runs it, before its instances "
                                 "there start (code generation)"),
                               2),
                    &OperatorCosts::codegen_s_per_fragment));

  // Schema 1: queries.<name>.
  t.push_back(only_until(P(S::query_rows, "work_rows", T::integer, "rows", 0, 0, 1e15,
                           "schema 1's work rows of a query (refused with `queries`)"),
                         1, ""));
  t.push_back(only_until(P(S::query_rows, "scan_rows", T::integer, "rows", 0, 0, 1e15,
                           "schema 1's scan rows of a query (refused with `queries`)"),
                         1, ""));

  // Query.
  // The other keys of a query are objects and arrays its parser walks; `expected` is kept as its
  // text, `source` is not read.
  t.push_back(
      binds(required(P(S::query, "name", T::string, "", null, none, none, "unique name of the query")),
            &QuerySpec::name));
  t.push_back(P(S::query, "source", T::string, "", "", none, none, "where this query's plan and rows come from"));
  t.push_back(required(P(S::query, "fragments", T::array, "", null, 1, none,
                         "the fragments of the plan run at mt_dop 0 (and at mt_dop > 0 without `parallel`)")));
  t.push_back(P(S::query, "exchanges", T::array, "", json::array(), none, none, "the exchanges of that plan"));
  t.push_back(P(S::query, "parallel", T::object, "", null, none, none,
                "the plan run at mt_dop > 0: {\"fragments\": [...], \"exchanges\": [...]} (Impala plans "
                "differently then: separate join-build fragments, the planner's mt_dop costing)"));
  t.push_back(P(S::query, "expected", T::object, "", json::object(), none, none,
                "measured values to compare with (e.g. runtime_s); copied to the results"));
  t.push_back(required(P(S::plan, "fragments", T::array, "", null, 1, none, "the fragments of the plan")));
  t.push_back(P(S::plan, "exchanges", T::array, "", json::array(), none, none, "the exchanges of the plan"));

  // Fragment. `source` is not read; `root` and `sink` are the tree and a reference the parser
  // walks; the placement's zeros are resolved by models/query/plan.
  t.push_back(
      binds(required(P(S::fragment, "id", T::string, "", null, none, none, "unique name in the query")),
            &FragmentSpec::id));
  t.push_back(P(S::fragment, "source", T::string, "", "", none, none, "where this fragment comes from"));
  t.push_back(
      binds(derived(P(S::fragment, "executors", T::integer, "hosts", 0, 0, 1000,
                      "executors running its instances; 0 = those of its leftmost input (all for a scan; a "
                      "join-build fragment: its join's; one when that input gathers an UNPARTITIONED exchange)"),
                    "Impala's placement"),
            &FragmentSpec::executors));
  t.push_back(
      binds(P(S::fragment, "first_executor", T::integer, "index", 0, 0, 999,
              "its instances run on executors first..first+executors-1 (executor 0 is the coordinator)"),
            &FragmentSpec::first_executor));
  t.push_back(
      binds(derived(P(S::fragment, "instances_per_executor", T::integer, "instances", 0, 0, 1024,
                      "instances per executor; 0 = Impala's rule: 1 at mt_dop 0; at mt_dop N a fragment whose "
                      "leftmost leaf is a scan runs min(N, ceil(scan_ranges / executors)); one gathering an "
                      "UNPARTITIONED exchange on its leftmost leaf runs one (it is unpartitioned), any other "
                      "copies the fragment feeding its leftmost exchange; a join-build fragment runs one per "
                      "executor when its join is `shared` (broadcast), else one per probe instance"),
                    "1 at mt_dop 0; min(mt_dop, scan ranges per executor) for a scan; its leftmost input's"),
            &FragmentSpec::instances_per_executor));
  t.push_back(required(P(S::fragment, "root", T::object, "", null, none, none, "its operator tree")));
  t.push_back(required(P(S::fragment, "sink", T::object, "", null, none, none,
                         "where its rows go: {\"exchange\": id}, {\"result\": true} or {\"join_build\": join id}")));
  t.push_back(P(S::sink, "exchange", T::string, "", null, none, none, "sends its rows on this exchange"));
  t.push_back(P(S::sink, "result", T::boolean, "", null, none, none, "returns the query's rows (the root)"));
  t.push_back(P(S::sink, "join_build", T::string, "", null, none, none,
                "builds the hash table of the join with this id (a join-build fragment)"));

  // Operators. Which keys an operator's kind takes is op_keys() in input/scenario.cpp; every
  // bound member is set whatever the kind (a key the kind does not take is refused, so there the
  // row's default stands). `source` is not read; `runtime_filters`, `exchange`, `input`, `inputs`,
  // `probe` and `build` are references and the tree, which the parser resolves.
  t.push_back(binds(required(choices(P(S::op, "op", T::enumeration, "", null, none, none, "the operator"),
                                     {"scan", "exchange", "hash_join", "nested_loop_join", "aggregate",
                                      "sort", "top_n", "analytic", "select", "limit", "union"})),
                    &OpSpec::kind));
  t.push_back(binds(
      required(P(S::op, "id", T::string, "", null, none, none, "the plan node id, unique in the query")),
      &OpSpec::id));
  t.push_back(P(S::op, "source", T::string, "", "", none, none, "where this operator's rows come from"));
  // Required by the parser for every kind but an exchange, which outputs what it receives.
  t.push_back(
      binds(derived(P(S::op, "rows", T::number, "rows", null, 0, 1e15,
                      "rows it outputs over all instances, as the plan estimates (required except on an "
                      "exchange)"),
                    "required"),
            &OpSpec::rows));
  t.push_back(binds(P(S::op, "table", T::string, "", "", none, none, "scan: the table"), &OpSpec::table));
  // A scan without it reads `rows` (set by the parser).
  t.push_back(binds(
      derived(P(S::op, "rows_read", T::number, "rows", null, 0, 1e15, "scan: rows read before predicates"),
              "rows"),
      &OpSpec::rows_read));
  t.push_back(
      binds(P(S::op, "scan_ranges", T::integer, "ranges", 0, 0, 1e12,
              "scan: ranges (files) it reads; bounds the instances at mt_dop > 0 and the scanner threads; "
              "0 = no bound"),
            &OpSpec::scan_ranges));
  // Absent: empty, which the scan reads as an even share.
  t.push_back(binds(
      derived(exclusive_min(P(S::op, "instance_weights", T::number_array, "relative", null, 0, kMaxWeight,
                              "scan: share of its rows per instance (skew); one positive number per "
                              "instance")),
              "even"),
      &OpSpec::instance_weights));
  t.push_back(P(S::op, "runtime_filters", T::array, "", null, none, none,
                "scan: the runtime filters it applies, [{\"join\": join id, \"keep\": fraction of its rows "
                "kept}]; `rows` counts them all applied"));
  t.push_back(P(S::op, "exchange", T::string, "", null, none, none, "exchange: the id of the exchange it reads"));
  t.push_back(P(S::op, "input", T::object, "", null, none, none, "the input of a unary operator"));
  t.push_back(P(S::op, "inputs", T::array, "", null, 1, none, "union: its inputs, read one after another"));
  t.push_back(P(S::op, "probe", T::object, "", null, none, none, "join: the probe side"));
  t.push_back(P(S::op, "build", T::object, "", null, none, none,
                "join: the build side, an operator in this fragment or {\"fragment\": id} of a join-build "
                "fragment"));
  t.push_back(
      binds(derived(P(S::op, "shared", T::boolean, "", null, none, none,
                      "join with a build fragment: one build per executor serves every probe instance "
                      "there (broadcast), else build instance i serves probe instance i"),
                    "true"),
            &OpSpec::shared_build, true));
  t.push_back(
      binds(choices(P(S::op, "phase", T::enumeration, "", "finalize", none, none,
                      "aggregate: streaming (a pre-aggregation: passes batches on) or finalize (blocking)"),
                    {"streaming", "finalize"}),
            &OpSpec::phase));
  t.push_back(binds(P(S::op, "groups", T::number, "rows", 0, 0, 1e15,
                      "aggregate: it outputs at most this many rows per instance (its groups); 0 = no bound"),
                    &OpSpec::groups));
  // Absent: -1, no limit (the parser requires it of limit, and of top_n unless partitioned).
  t.push_back(binds(derived(P(S::op, "limit", T::number, "rows", null, 0, 1e15,
                              "top_n and limit: rows per instance at most"),
                            "required for top_n and limit"),
                    &OpSpec::limit, -1));
  t.push_back(
      binds(P(S::op, "partitioned", T::boolean, "", false, none, none,
              "top_n: a partitioned top-n (a `partition limit` in Impala's plan, which keeps that many "
              "rows per partition key): each instance outputs at most its share of `rows`, "
              "ceil(rows / instances), at least one; it then takes no `limit`"),
            &OpSpec::partitioned));

  // Exchange. Its rows bind ExchangeSpec, BatchShape, CpuCosts and (the exchange-only form's
  // producer and consumer) StandaloneEnds; input/scenario.cpp resolves the derived defaults (the
  // placement's zeros, the weights of 1, the fanout of 1 unless DIRECTED). `source` is not read;
  // `after` (ids of exchanges), `flags` (its own section), `faults` (their section) and `expected`
  // (kept as its text) are read by the parser.
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

  // Faults. Which kinds need a sender or a receiver, and the bound of each index (the exchange's
  // instances), are checked by input/scenario.cpp.
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
  // Remote scan ("kind": "remote_scan"): executors reading Parquet splits from S3 through Velox's
  // executor-global split prefetch. Where each default was read: scenarios/velox_s3_q1/README.md.
  t.push_back(binds(P(S::remote_scan, "series_step_s", T::number, "s", 0.1, 1e-3, 1e6,
                      "step of the results' time series (the state at every multiple of it)"),
                    &PrefetchConfig::series_step_s));
  t.push_back(P(S::remote_scan, "cluster", T::object, "", json::object(), none, none,
                "the executors, their hosts and NICs"));
  t.push_back(P(S::remote_scan, "s3", T::object, "", json::object(), none, none,
                "S3 as a service: time to first byte and per-stream throughput"));
  t.push_back(P(S::remote_scan, "splits", T::object, "", json::object(), none, none,
                "the table-scan splits (count and sizes, or an explicit list)"));
  t.push_back(P(S::remote_scan, "prefetch", T::object, "", json::object(), none, none,
                "the executor-global split prefetch (Velox configs under their own names)"));
  t.push_back(P(S::remote_scan, "scan", T::object, "", json::object(), none, none,
                "scan drivers and the consumer (the GPU)"));

  t.push_back(binds(P(S::remote_scan_cluster, "executors", T::integer, "processes", 4, 1, 1000,
                      "executor processes, each with its own prefetcher, scan drivers and consumer; split i "
                      "goes to executor i mod executors"),
                    &RemoteScanScenario::executors));
  t.push_back(
      binds(derived(P(S::remote_scan_cluster, "hosts", T::integer, "hosts", 0, 0, 1000,
                      "hosts the executors run on: executor i on host i mod hosts; executors on one host "
                      "share its NIC; 0 means one host per executor"),
                    "0 = one per executor"),
            &RemoteScanScenario::hosts));
  t.push_back(binds(P(S::remote_scan_cluster, "nic_bandwidth_gbps", T::number, "Gbit/s", 25, kMinGbps,
                      kMaxGbps, "inbound NIC bandwidth of each host (an assumption unless measured)"),
                    &RemoteScanScenario::nic_bandwidth_gbps));

  t.push_back(binds_scaled(P(S::remote_scan_s3, "data_ttfb_p50_ms", T::number, "ms", 100, 1e-3, 1e6,
                             "median time to first byte of a data GET (up to part_bytes), lognormal (the S3 "
                             "performance guide: 100-200 ms for larger requests)"),
                           &PrefetchConfig::ttfb_p50_s, 1e-3));
  t.push_back(binds_scaled(P(S::remote_scan_s3, "data_ttfb_p99_ms", T::number, "ms", 400, 1e-3, 1e6,
                             "99th percentile of a data GET's time to first byte; at least data_ttfb_p50_ms"),
                           &PrefetchConfig::ttfb_p99_s, 1e-3));
  t.push_back(binds_scaled(P(S::remote_scan_s3, "footer_ttfb_p50_ms", T::number, "ms", 10, 1e-3, 1e6,
                             "median time to first byte of a footer GET (a small request), lognormal "
                             "(s3-benchmark: p90 about 20 ms)"),
                           &PrefetchConfig::footer_ttfb_p50_s, 1e-3));
  t.push_back(
      binds_scaled(P(S::remote_scan_s3, "footer_ttfb_p99_ms", T::number, "ms", 40, 1e-3, 1e6,
                     "99th percentile of a footer GET's time to first byte; at least footer_ttfb_p50_ms"),
                   &PrefetchConfig::footer_ttfb_p99_s, 1e-3));
  t.push_back(choices(
      P(S::remote_scan_s3, "ttfb_distribution", T::enumeration, "", "lognormal", none, none,
        "shape of both kinds' time to first byte: lognormal, from each kind's p50 and p99; quantiles, "
        "the table ttfb_quantiles_ms at ttfb_quantile_levels moved to each kind's p50 (the difference "
        "added to every draw), the p99s unused"),
      {"lognormal", "quantiles"}));
  t.push_back(exclusive_min(P(S::remote_scan_s3, "ttfb_quantile_levels", T::number_array, "probability",
                              json::array({0.002, 0.25, 0.5, 0.75, 0.9, 0.99, 0.998}), 0, 1,
                              "probabilities of ttfb_quantiles_ms, increasing, below 1, the median among "
                              "them (the defaults: s3-benchmark's min, p25, p50, p75, p90, p99 and max of "
                              "500 samples)")));
  t.push_back(exclusive_min(P(S::remote_scan_s3, "ttfb_quantiles_ms", T::number_array, "ms",
                              json::array({7, 9, 10, 12, 17, 75, 230}), 0, 1e6,
                              "time to first byte at each of ttfb_quantile_levels, non-decreasing; "
                              "draws interpolate ln(ms) linearly and stay within the first and last "
                              "(the defaults: s3-benchmark's 8 MB GETs from a c5.4xlarge, 8-12 threads, "
                              "the median of its five rows)")));
  t.push_back(binds(P(S::remote_scan_s3, "stream_mb_per_s", T::number, "MB/s (10^6 bytes)", 90, 1e-3, 1e6,
                      "throughput of one GET stream once its first byte arrived (the S3 guide: "
                      "85-90 MB/s per connection)"),
                    &RemoteScanScenario::stream_mb_per_s));

  t.push_back(derived(P(S::remote_scan_splits, "count", T::integer, "splits", null, 1, 1e7,
                        "number of splits (with data_bytes_total; or give `bytes`)"),
                      "the length of `bytes`"));
  t.push_back(derived(P(S::remote_scan_splits, "data_bytes_total", T::integer, "bytes", null, 1, 1e16,
                        "data bytes of all splits together (without footers), spread by size_cv"),
                      "the sum of `bytes`"));
  t.push_back(P(S::remote_scan_splits, "size_cv", T::number, "ratio", 0, 0, 10,
                "coefficient of variation of split data sizes: lognormal draws (seeded) scaled to sum to "
                "data_bytes_total; 0 gives equal sizes"));
  t.push_back(derived(exclusive_min(P(S::remote_scan_splits, "bytes", T::number_array, "bytes", null, 0, 1e16,
                                      "data bytes of each split in queue order, instead of count and "
                                      "data_bytes_total; whole numbers")),
                      "drawn from count, data_bytes_total and size_cv"));
  t.push_back(binds(P(S::remote_scan_splits, "footer_bytes", T::integer, "bytes", 65536, 1, 1 << 30,
                      "bytes of each split's footer GET (a 64 KiB metadata readahead)"),
                    &PrefetchConfig::footer_bytes));

  t.push_back(binds(
      P(S::remote_scan_prefetch, "executorSplitPrefetchConcurrency", T::integer, "splits (C)", 16, 1, 100000,
        "splits each executor keeps prefetching at once, from the start of a split's data load to "
        "its end (Velox's default min(16, prefetchThreads))"),
      &PrefetchConfig::split_concurrency));
  // Absent from a file unless set, so that results of scenarios without them keep their settings.
  t.push_back(derived(
      choices(P(S::remote_scan_prefetch, "split_prefetch_policy", T::enumeration, "", null, none, none,
                "how an executor's C moves at run time (a what-if: Velox has no such setting): fixed keeps "
                "executorSplitPrefetchConcurrency; bdp and gradient adapt it from the splits' load times "
                "(as rpcs_in_flight_policy does K), starting at executorSplitPrefetchConcurrency, up to "
                "split_prefetch_max"),
              window_policy_names()),
      "\"fixed\""));
  t.push_back(derived(P(S::remote_scan_prefetch, "split_prefetch_max", T::integer, "splits (C_max)", null, 1, 100000,
                        "an adaptive policy's cap on C (a what-if: Velox has no such setting); by default "
                        "plan_ahead_splits + scan.drivers, the most splits that can be registered at once (the "
                        "plan-ahead window and one held by each driver)"),
                      "plan_ahead_splits + scan.drivers"));
  t.push_back(
      binds(P(S::remote_scan_prefetch, "prefetchMaxInFlightBytes", T::integer, "bytes", 4294967296, 1, 1e16,
              "bytes of splits loading or loaded and not yet taken by a scan driver; a split a driver "
              "waits for may exceed it"),
            &PrefetchConfig::max_in_flight_bytes));
  t.push_back(
      binds(P(S::remote_scan_prefetch, "plan_ahead_splits", T::integer, "splits", 64, 1, 1e6,
              "splits at the head of an executor's queue whose footers are read ahead so that they can "
              "be prefetched (Velox's split preload: scan drivers x SplitPreloadPerDriver)"),
            &PrefetchConfig::plan_ahead_splits));
  t.push_back(
      binds(P(S::remote_scan_prefetch, "max_gets_in_flight", T::integer, "requests", 256, 1, 1e6,
              "data GETs in flight per executor process (the prefetch's scheduler); a waited-for split's "
              "GETs go first; footers are read by the planning, outside this window"),
            &PrefetchConfig::max_gets_in_flight));
  t.push_back(
      binds(P(S::remote_scan_prefetch, "part_bytes", T::integer, "bytes", 8388608, 1, 1e12,
              "largest data GET: a split's data is fetched in ceil(bytes / part_bytes) near-equal GETs, "
              "all issued at once (8 MiB: Velox's load quantum, the AWS CRT client's part size)"),
            &PrefetchConfig::part_bytes));

  t.push_back(binds(P(S::remote_scan_scan, "drivers", T::integer, "drivers", 4, 1, 1024,
                      "scan drivers per executor; each takes a split, hands it to the consumer, then takes "
                      "the next"),
                    &PrefetchConfig::scan_drivers));
  t.push_back(
      binds(choices(P(S::remote_scan_scan, "consumption", T::enumeration, "", "ready_first", none, none,
                      "which split a free scan driver takes: ready_first, the first loaded one; "
                      "planned_first, the first whose footer is read, then it waits for its data; "
                      "in_order, the next one in the queue, then it waits for it"),
                    {"ready_first", "planned_first", "in_order"}),
            &PrefetchConfig::consumption));
  t.push_back(binds(P(S::remote_scan_scan, "consumer_ns_per_byte", T::number, "ns", 0, 0, 1e6,
                      "consumer (GPU) time per data byte; one device per executor, shared equally by the "
                      "drivers feeding it"),
                    &PrefetchConfig::consumer_ns_per_byte));
  t.push_back(binds(P(S::remote_scan_scan, "startup_s", T::number, "s", 0, 0, 1e6,
                      "time from the query's start to the first footer GET"),
                    &PrefetchConfig::startup_s));
  return t;
}

} // namespace

const std::vector<ParamSpec>& parameter_table() {
  static const std::vector<ParamSpec> table = build_table();
  return table;
}

const ParamSpec* find_param(Section section, const std::string& name, int version) {
  for (const auto& p : parameter_table())
    if (p.section == section && p.name == name && p.since <= version && version <= p.until) return &p;
  return nullptr;
}

std::vector<const ParamSpec*> every_kind_params() {
  std::vector<const ParamSpec*> out;
  for (const auto& p : parameter_table())
    if (p.every_kind) out.push_back(&p);
  return out;
}

std::vector<const ParamSpec*> params_of(Section section, int version) {
  std::vector<const ParamSpec*> out;
  for (const auto& p : parameter_table())
    if (p.section == section && p.since <= version && version <= p.until) out.push_back(&p);
  return out;
}

const ParamSpec* removed_param(Section section, const std::string& name, int version) {
  for (const auto& p : parameter_table())
    if (p.section == section && p.name == name && p.until < version) return &p;
  return nullptr;
}

template <class T> void bind_fields(Section section, const json& obj, T& out) {
  for (const ParamSpec& p : parameter_table()) {
    const auto* b = std::get_if<FieldBinding<T>>(&p.binds);
    if (p.section != section || b == nullptr) continue;
    if (obj.contains(p.name))
      b->set(obj.at(p.name), out);
    else
      b->set(p.default_value.is_null() ? b->absent : p.default_value, out);
  }
}
template void bind_fields(Section, const json&, ClusterSpec&);
template void bind_fields(Section, const json&, Flags&);
template void bind_fields(Section, const json&, OperatorCosts&);
template void bind_fields(Section, const json&, BatchShape&);
template void bind_fields(Section, const json&, CpuCosts&);
template void bind_fields(Section, const json&, QuerySpec&);
template void bind_fields(Section, const json&, FaultSpec&);
template void bind_fields(Section, const json&, FragmentSpec&);
template void bind_fields(Section, const json&, OpSpec&);
template void bind_fields(Section, const json&, ExchangeSpec&);
template void bind_fields(Section, const json&, StandaloneEnds&);
template void bind_fields(Section, const json&, RemoteScanScenario&);
template void bind_fields(Section, const json&, PrefetchConfig&);

const char* scope_of(const ParamSpec& p) {
  switch (p.section) {
  case Section::scenario:
    return "scenario";
  case Section::cluster:
    return "cluster";
  case Section::flags:
    return p.daemon_wide ? "daemon" : "exchange";
  case Section::costs:
    return "costs";
  case Section::query_rows:
  case Section::query:
  case Section::plan:
  case Section::fragment:
  case Section::sink:
  case Section::op:
    return "query";
  case Section::exchange:
  case Section::fault:
    return "exchange";
  case Section::remote_scan:
  case Section::remote_scan_cluster:
  case Section::remote_scan_s3:
  case Section::remote_scan_splits:
  case Section::remote_scan_prefetch:
  case Section::remote_scan_scan:
    return "remote_scan";
  }
  return "?";
}

const char* bound_struct(const ParamSpec& p) {
  return std::visit(
      [](const auto& b) -> const char* {
        using B = std::decay_t<decltype(b)>;
        if constexpr (std::is_same_v<B, FieldBinding<ClusterSpec>>) return "ClusterSpec";
        if constexpr (std::is_same_v<B, FieldBinding<Flags>>) return "Flags";
        if constexpr (std::is_same_v<B, FieldBinding<OperatorCosts>>) return "OperatorCosts";
        if constexpr (std::is_same_v<B, FieldBinding<BatchShape>>) return "BatchShape";
        if constexpr (std::is_same_v<B, FieldBinding<CpuCosts>>) return "CpuCosts";
        if constexpr (std::is_same_v<B, FieldBinding<QuerySpec>>) return "QuerySpec";
        if constexpr (std::is_same_v<B, FieldBinding<FaultSpec>>) return "FaultSpec";
        if constexpr (std::is_same_v<B, FieldBinding<FragmentSpec>>) return "FragmentSpec";
        if constexpr (std::is_same_v<B, FieldBinding<OpSpec>>) return "OpSpec";
        if constexpr (std::is_same_v<B, FieldBinding<ExchangeSpec>>) return "ExchangeSpec";
        if constexpr (std::is_same_v<B, FieldBinding<StandaloneEnds>>) return "StandaloneEnds";
        if constexpr (std::is_same_v<B, FieldBinding<RemoteScanScenario>>) return "RemoteScanScenario";
        if constexpr (std::is_same_v<B, FieldBinding<PrefetchConfig>>) return "PrefetchConfig";
        return "";
      },
      p.binds);
}

namespace {
std::string number_text(double v) {
  if (v == static_cast<double>(static_cast<long long>(v)))
    return fmt::format("{}", static_cast<long long>(v));
  return fmt::format("{}", v);
}
} // namespace

std::string describe_expectation(const ParamSpec& p) {
  std::string s;
  switch (p.type) {
  case ParamType::integer:
    s = "an integer";
    break;
  case ParamType::number:
    s = "a number";
    break;
  case ParamType::boolean:
    return "true or false";
  case ParamType::string:
    return "a string";
  case ParamType::enumeration: {
    s = "one of ";
    for (size_t i = 0; i < p.choices.size(); ++i)
      s += (i ? ", " : "") + std::string("\"") + p.choices[i] + "\"";
    return s;
  }
  case ParamType::object:
    return "an object";
  case ParamType::number_array:
    s = "an array of numbers";
    if (p.min) s += fmt::format(" each {} {}", p.min_exclusive ? ">" : ">=", number_text(*p.min));
    if (p.max) s += fmt::format("{} <= {}", p.min ? " and" : " each", number_text(*p.max));
    return s;
  case ParamType::string_array:
    return "an array of strings";
  case ParamType::array:
    s = "an array";
    if (p.min) s += fmt::format(" with at least {} element(s)", number_text(*p.min));
    return s;
  }
  if (p.min && p.max)
    s += fmt::format(" in {}{}, {}]", p.min_exclusive ? "(" : "[", number_text(*p.min), number_text(*p.max));
  else if (p.min)
    s += fmt::format(" {} {}", p.min_exclusive ? ">" : ">=", number_text(*p.min));
  else if (p.max)
    s += fmt::format(" <= {}", number_text(*p.max));
  return s;
}

namespace {

// A row's meaning as `exsim params` and the schema show it, with where a daemon-wide flag is set.
std::string meaning(const ParamSpec& p) {
  return p.daemon_wide ? p.description + " (daemon-wide: top-level flags only)" : p.description;
}

json schema_of(const ParamSpec& p) {
  json s;
  switch (p.type) {
  case ParamType::integer:
  case ParamType::number:
    s["type"] = p.type == ParamType::integer ? "integer" : "number";
    if (p.min) s[p.min_exclusive ? "exclusiveMinimum" : "minimum"] = *p.min;
    if (p.max) s["maximum"] = *p.max;
    break;
  case ParamType::boolean:
    s["type"] = "boolean";
    break;
  case ParamType::string:
    s["type"] = "string";
    break;
  case ParamType::enumeration:
    s["enum"] = p.choices;
    break;
  case ParamType::object:
    s["type"] = "object";
    break;
  case ParamType::number_array:
    s["type"] = "array";
    s["items"] = {{"type", "number"}, {"exclusiveMinimum", p.min.value_or(0)}};
    break;
  case ParamType::string_array:
    s["type"] = "array";
    s["items"] = {{"type", "string"}};
    break;
  case ParamType::array:
    s["type"] = "array";
    if (p.min) s["minItems"] = static_cast<int>(*p.min);
    break;
  }
  std::string d = meaning(p);
  if (!p.unit.empty()) d += " [" + p.unit + "]";
  if (!p.derived.empty()) d += " (default: " + p.derived + ")";
  s["description"] = d;
  if (!p.default_value.is_null()) s["default"] = p.default_value;
  return s;
}

json object_schema(Section section, const std::map<std::string, json>& nested = {}, bool in_query = false) {
  json props = json::object();
  json req = json::array();
  for (const ParamSpec* p : params_of(section)) {
    if (in_query && p->standalone_only) continue;
    auto it = nested.find(p->name);
    props[p->name] = it != nested.end() ? it->second : schema_of(*p);
    if (it != nested.end()) props[p->name]["description"] = schema_of(*p)["description"];
    if (p->required) req.push_back(p->name);
  }
  json s = {{"type", "object"}, {"additionalProperties", false}, {"properties", props}};
  if (!req.empty()) s["required"] = req;
  return s;
}

} // namespace

json scenario_schema() {
  const json flags = object_schema(Section::flags);
  const json fault = object_schema(Section::fault);
  const json exchange = object_schema(
      Section::exchange, {{"flags", flags}, {"faults", {{"type", "array"}, {"items", fault}}}});
  const json query_exchange = object_schema(Section::exchange, {{"flags", flags}}, true);
  json defaults = exchange;
  defaults["properties"].erase("id");
  defaults["properties"].erase("faults");
  defaults.erase("required");
  const json op_ref = {{"$ref", "#/$defs/operator"}};
  const json build_fragment = {{"type", "object"},
                               {"additionalProperties", false},
                               {"properties", {{"fragment", {{"type", "string"}}}}},
                               {"required", {"fragment"}}};
  const json runtime_filter = {
      {"type", "object"},
      {"additionalProperties", false},
      {"properties",
       {{"join", {{"type", "string"}}}, {"keep", {{"type", "number"}, {"exclusiveMinimum", 0}, {"maximum", 1}}}}},
      {"required", {"join", "keep"}}};
  const json op = object_schema(Section::op, {{"runtime_filters", {{"type", "array"}, {"items", runtime_filter}}},
                                              {"input", op_ref},
                                              {"probe", op_ref},
                                              {"build", {{"oneOf", {op_ref, build_fragment}}}},
                                              {"inputs", {{"type", "array"}, {"minItems", 1}, {"items", op_ref}}}});
  json sink = object_schema(Section::sink);
  sink["minProperties"] = 1;
  sink["maxProperties"] = 1;
  const json fragment = object_schema(Section::fragment, {{"root", op_ref}, {"sink", sink}});
  const json fragments = {{"type", "array"}, {"minItems", 1}, {"items", fragment}};
  const json exchanges = {{"type", "array"}, {"items", query_exchange}};
  const json plan = object_schema(Section::plan, {{"fragments", fragments}, {"exchanges", exchanges}});
  const json query =
      object_schema(Section::query, {{"fragments", fragments}, {"exchanges", exchanges}, {"parallel", plan}});
  const json exchange_form = object_schema(Section::scenario, {{"cluster", object_schema(Section::cluster)},
                                               {"flags", flags},
                                               {"costs", object_schema(Section::costs)},
                                               {"exchange_defaults", defaults},
                                               {"exchanges", {{"type", "array"}, {"items", exchange}}},
                                               {"queries", {{"type", "array"}, {"items", query}}}});
  // The remote-scan form: the keys every kind has, then its own sections.
  json remote_scan_form =
      object_schema(Section::remote_scan, {{"cluster", object_schema(Section::remote_scan_cluster)},
                                           {"s3", object_schema(Section::remote_scan_s3)},
                                           {"splits", object_schema(Section::remote_scan_splits)},
                                           {"prefetch", object_schema(Section::remote_scan_prefetch)},
                                           {"scan", object_schema(Section::remote_scan_scan)}});
  json required = json::array();
  for (const ParamSpec* p : every_kind_params()) {
    remote_scan_form["properties"][p->name] = exchange_form["properties"][p->name];
    if (p->required) required.push_back(p->name);
  }
  remote_scan_form["properties"]["kind"]["const"] = "remote_scan";
  required.push_back("kind");
  remote_scan_form["required"] = required;
  json top = {{"$schema", "https://json-schema.org/draft/2020-12/schema"},
              {"$id", fmt::format("exsim-scenario-v{}", kSchemaVersion)},
              {"title", "exsim scenario"},
              {"type", "object"},
              {"if", {{"properties", {{"kind", {{"const", "remote_scan"}}}}}, {"required", {"kind"}}}},
              {"then", remote_scan_form},
              {"else", exchange_form},
              {"$defs", {{"operator", op}}}};
  return top;
}

namespace {

// The sections of the current format, in the order `exsim params` lists them.
constexpr Section kListedSections[] = {
    Section::scenario,        Section::cluster,           Section::flags,          Section::costs,
    Section::query,           Section::plan,              Section::fragment,       Section::sink,
    Section::op,              Section::exchange,          Section::fault,          Section::remote_scan,
    Section::remote_scan_cluster, Section::remote_scan_s3, Section::remote_scan_splits,
    Section::remote_scan_prefetch, Section::remote_scan_scan};

} // namespace

std::string parameters_help() {
  std::string out;
  for (Section s : kListedSections) {
    out += fmt::format("\n{}:\n", to_string(s));
    for (const ParamSpec* p : params_of(s)) {
      std::string def = p->required ? "required" : !p->derived.empty() ? p->derived : p->default_value.dump();
      out += fmt::format("  {:<34} {:<12} default {:<22} {}\n", p->name, p->unit.empty() ? "-" : p->unit, def,
                         describe_expectation(*p));
      std::string what = meaning(*p);
      if (p->standalone_only) what += " (exchanges[] only)";
      out += fmt::format("  {:<34} {}\n", "", what);
    }
  }
  return out;
}

nlohmann::json parameters_json() {
  nlohmann::json list = nlohmann::json::array();
  for (Section s : kListedSections)
    for (const ParamSpec* p : params_of(s)) {
      nlohmann::json row = {{"section", section_key(s)},
                            {"section_title", to_string(s)},
                            {"name", p->name},
                            {"type", to_string(p->type)},
                            {"unit", p->unit},
                            {"required", p->required},
                            {"default", p->default_value},
                            {"derived", p->derived},
                            {"check", describe_expectation(*p)},
                            {"description", meaning(*p)},
                            {"standalone_only", p->standalone_only},
                            {"since", p->since},
                            {"scope", scope_of(*p)},
                            {"binds", bound_struct(*p)}};
      if (p->min) row["min"] = *p->min;
      if (p->max) row["max"] = *p->max;
      if (p->min_exclusive) row["min_exclusive"] = true;
      if (!p->choices.empty()) row["choices"] = p->choices;
      list.push_back(std::move(row));
    }
  return {{"schema_version", kSchemaVersion}, {"parameters", list}, {"rules", rules_json()}};
}

} // namespace exsim
