#include "input/parameters.hpp"

#include "models/partitioner.hpp"

#include <fmt/format.h>

namespace exsim {

using nlohmann::json;

const char* to_string(Section s) {
  switch (s) {
  case Section::scenario:
    return "scenario";
  case Section::cluster:
    return "cluster";
  case Section::flags:
    return "flags";
  case Section::query:
    return "queries.<query>";
  case Section::exchange:
    return "exchanges[]";
  case Section::fault:
    return "exchanges[].faults[]";
  }
  return "?";
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

std::vector<ParamSpec> build_table() {
  using S = Section;
  using T = ParamType;
  const json null;
  const auto none = std::nullopt;
  std::vector<ParamSpec> t;
  // Scenario (top level).
  t.push_back(required(
      P(S::scenario, "schema_version", T::integer, "", null, 1, 1, "scenario format version; must be 1")));
  t.push_back(derived(P(S::scenario, "name", T::string, "", null, none, none, "label copied to the results"),
                      "the file name without .json"));
  t.push_back(P(S::scenario, "description", T::string, "", "", none, none,
                "one line saying what the scenario is for"));
  t.push_back(P(S::scenario, "seed", T::integer, "", 1, 0, none,
                "seed of every random stream (one per sender instance)"));
  t.push_back(P(S::scenario, "provenance", T::object, "", json::object(), none, none,
                "free-form record of where the numbers come from; not read by the simulator"));
  t.push_back(choices(
      P(S::scenario, "query_order", T::enumeration, "", "concurrent", none, none,
        "concurrent: exchanges run together unless ordered by `after`; sequential: queries run one "
        "after another in order of first appearance, each alone on the cluster (every exchange names "
        "its query, `after` stays within a query), so each query can be simulated in its own process"),
      {"concurrent", "sequential"}));
  t.push_back(P(S::scenario, "query_overhead_s", T::number, "s", 0, 0, 1e6,
                "fixed time of every query outside its exchanges (planning, admission, start-up, "
                "tear-down), added to its runtime_s; with query_order sequential the next query starts "
                "that much later"));
  t.push_back(P(S::scenario, "query_work_ns_per_row", T::number, "ns", 0, 0, 1e6,
                "CPU per row of a query's work outside its exchanges: a query's runtime_s adds "
                "(scan_rows / scan threads + work_rows / max(1, mt_dop)) x this / executors, where scan "
                "threads = query_scanner_threads at mt_dop 0 and mt_dop otherwise; in sequential order the "
                "next query starts that much later"));
  t.push_back(P(S::scenario, "query_scanner_threads", T::integer, "threads", 0, 0, 1024,
                "threads per executor decoding a query's scans at mt_dop 0 (Impala's num_scanner_threads; "
                "0 means one per core); with mt_dop > 0 each fragment instance scans on its own thread"));
  t.push_back(P(S::scenario, "queries", T::object, "", json::object(), none, none,
                "per-query settings, keyed by the query names the exchanges use"));
  t.push_back(P(S::scenario, "cluster", T::object, "", json::object(), none, none,
                "the executors and their network"));
  t.push_back(P(S::scenario, "flags", T::object, "", json::object(), none, none,
                "Impala flags for every exchange (an exchange may override them)"));
  t.push_back(P(S::scenario, "exchange_defaults", T::object, "", json::object(), none, none,
                "exchange keys (except id and faults) applied to every exchange that does not set them"));
  t.push_back(
      required(P(S::scenario, "exchanges", T::array, "", null, 1, none, "the exchanges to simulate")));

  // Cluster.
  t.push_back(P(S::cluster, "executors", T::integer, "hosts", 5, 1, 1000,
                "executor daemons, one simulated host each"));
  t.push_back(P(S::cluster, "cores_per_executor", T::integer, "cores", 16, 1, 1024,
                "cores per executor, shared by every instance on it"));
  t.push_back(exclusive_min(P(S::cluster, "nic_bandwidth_gbps", T::number, "Gbit/s", 12.5, 0, none,
                              "NIC bandwidth of each executor, each direction")));
  t.push_back(P(S::cluster, "rtt_us", T::number, "us", 390, 0, 1e7,
                "round trip of an empty RPC between two executors (flat in payload size)"));
  t.push_back(P(S::cluster, "loopback_rtt_us", T::number, "us", 50, 0, 1e7,
                "round trip of an empty RPC to the same daemon (assumption, not measured)"));
  t.push_back(exclusive_min(P(S::cluster, "loopback_bandwidth_gbps", T::number, "Gbit/s", 100, 0, none,
                              "bandwidth of the path to the same daemon (assumption, not measured)")));
  t.push_back(
      choices(P(S::cluster, "network_model", T::enumeration, "", "exsim", none, none,
                "how transfers share the NICs (max-min fair either way): exsim = exsim's own solver, whose "
                "cost per transfer does not grow with executors squared; simgrid = SimGrid's CM02 model, the "
                "reference it is tested against (same results, slower with many executors)"),
              {"exsim", "simgrid"}));

  // Flags.
  t.push_back(P(S::flags, "data_stream_sender_buffer_size", T::integer, "bytes", 16384, 1, 1LL << 31,
                "hash collector size: rows per batch = max(1, this / fixed row bytes)"));
  t.push_back(P(S::flags, "exchg_node_buffer_size_bytes", T::integer, "bytes", 10485760, 1, 1LL << 40,
                "receiver buffer limit per receiver instance"));
  t.push_back(P(S::flags, "batch_size", T::integer, "rows", 1024, 1, 1 << 20,
                "rows per input batch (RANDOM and broadcast send whole batches)"));
  t.push_back(P(S::flags, "mt_dop", T::integer, "instances per executor", 0, 0, 64,
                "fragment instances per executor; 0 runs one"));
  t.push_back(P(S::flags, "rpcs_in_flight_per_channel", T::integer, "RPCs (K)", 1, 1, 64,
                "TransmitData RPCs a channel may keep in flight; applies to non-merging HASH_PARTITIONED and "
                "RANDOM senders unless an exchange sets it in its own flags"));
  t.push_back(P(S::flags, "compression", T::boolean, "", true, none, none,
                "LZ4-compress batches sent to another daemon"));
  t.push_back(
      P(S::flags, "datastream_service_num_svc_threads", T::integer, "threads", 0, 0, 1024,
        "threads deserializing admitted batches inline, per receiver instance; 0 means one per core"));
  t.push_back(P(S::flags, "datastream_service_num_deserialization_threads", T::integer, "threads", 16, 1,
                1024, "threads deserializing deferred batches once room frees up, per receiver instance"));
  t.push_back(
      choices(P(S::flags, "eos_flush", T::enumeration, "", "pipelined", none, none,
                "end of stream: pipelined (last batches, wait, EOS to all, wait) or serial (per channel)"),
              {"pipelined", "serial"}));

  // Query.
  t.push_back(P(S::query, "work_rows", T::integer, "rows", 0, 0, 1e15,
                "rows the query's operators (joins, aggregations, sorts) process on fragment threads "
                "outside its exchanges (see query_work_ns_per_row)"));
  t.push_back(P(S::query, "scan_rows", T::integer, "rows", 0, 0, 1e15,
                "rows the query's scans produce, decoded by scanner threads (see query_work_ns_per_row)"));

  // Exchange.
  t.push_back(required(P(S::exchange, "id", T::string, "", null, none, none, "unique name of the exchange")));
  t.push_back(P(S::exchange, "query", T::string, "", "", none, none, "query the exchange belongs to"));
  t.push_back(
      P(S::exchange, "source", T::string, "", "", none, none, "where this exchange's numbers come from"));
  t.push_back(required(choices(P(S::exchange, "partitioning", T::enumeration, "", null, none, none,
                                 "sender kind, as Impala's plans name it"),
                               partitioning_names())));
  t.push_back(P(S::exchange, "merging", T::boolean, "", false, none, none,
                "merging receiver: one queue per sender, consumer pulls from specific queues"));
  t.push_back(derived(P(S::exchange, "sender_executors", T::integer, "hosts", 0, 0, 1000,
                        "executors running sender instances; 0 means all"),
                      "0 = cluster.executors"));
  t.push_back(derived(P(S::exchange, "receiver_executors", T::integer, "hosts", 0, 0, 1000,
                        "executors running receiver instances; 0 means all"),
                      "0 = cluster.executors"));
  t.push_back(P(S::exchange, "sender_first_executor", T::integer, "index", 0, 0, 999,
                "senders run on executors first..first+sender_executors-1"));
  t.push_back(P(S::exchange, "receiver_first_executor", T::integer, "index", 0, 0, 999,
                "receivers run on executors first..first+receiver_executors-1"));
  t.push_back(derived(P(S::exchange, "sender_instances_per_executor", T::integer, "instances", 0, 0, 1024,
                        "sender fragment instances per executor; 0 means max(1, mt_dop)"),
                      "0 = max(1, mt_dop)"));
  t.push_back(derived(P(S::exchange, "receiver_instances_per_executor", T::integer, "instances", 0, 0, 1024,
                        "receiver fragment instances per executor; 0 means max(1, mt_dop)"),
                      "0 = max(1, mt_dop)"));
  t.push_back(required(P(S::exchange, "rows_total", T::integer, "rows", null, 0, 1e15,
                         "rows sent by all sender instances together, split evenly")));
  t.push_back(P(S::exchange, "fixed_row_bytes", T::integer, "bytes", 64, 1, 1 << 24,
                "fixed-length tuple bytes per row (sizes the hash collectors)"));
  t.push_back(P(S::exchange, "var_row_bytes", T::integer, "bytes", 0, 0, 1 << 24,
                "variable-length bytes per row (not counted by the collector)"));
  t.push_back(P(S::exchange, "tuples_per_row", T::integer, "tuples", 1, 1, 64, "tuples per row"));
  t.push_back(exclusive_min(P(S::exchange, "compression_ratio", T::number, "ratio", 0.5, 0, 1,
                              "LZ4 compressed / uncompressed tuple data (assumption unless calibrated)")));
  t.push_back(derived(
      exclusive_min(P(S::exchange, "receiver_weights", T::number_array, "relative", null, 0, none,
                      "share of rows per receiver instance (skew); one positive number per receiver")),
      "uniform"));
  t.push_back(
      derived(exclusive_min(P(
                  S::exchange, "receiver_consumer_slowdown", T::number_array, "factor", null, 0, none,
                  "multiplies consumer_ns_per_row per receiver instance; one positive number per receiver")),
              "1 for every receiver"));
  t.push_back(P(S::exchange, "directed_fanout", T::integer, "channels", 2, 1, 1024,
                "DIRECTED: channels each row is sent to"));
  t.push_back(P(S::exchange, "producer_ns_per_row", T::number, "ns", 0, 0, 1e9,
                "CPU per row of the operators below the sender"));
  t.push_back(P(S::exchange, "hash_ns_per_row", T::number, "ns", 5, 0, 1e9,
                "CPU per row to hash the partition expressions (HASH, KUDU, DIRECTED)"));
  t.push_back(P(S::exchange, "copy_ns_per_row", T::number, "ns", 10, 0, 1e9,
                "CPU per row copy into a collector (HASH, KUDU, DIRECTED)"));
  t.push_back(P(S::exchange, "compress_ns_per_byte", T::number, "ns", 1.3, 0, 1e6,
                "LZ4 compression CPU per uncompressed byte (about 780 MB/s)"));
  t.push_back(P(S::exchange, "serialize_ns_per_byte", T::number, "ns", 0.1, 0, 1e6,
                "serialization copy CPU per uncompressed byte"));
  t.push_back(P(S::exchange, "deserialize_ns_per_byte", T::number, "ns", 0.3, 0, 1e6,
                "receiver LZ4 decompression and copy CPU per uncompressed byte"));
  t.push_back(P(S::exchange, "consumer_ns_per_row", T::number, "ns", 0, 0, 1e9,
                "CPU per row of the operators above the receiver (drain rate)"));
  t.push_back(P(S::exchange, "start_s", T::number, "s", 0, 0, 1e9, "earliest start time"));
  t.push_back(P(S::exchange, "after", T::string_array, "", json::array(), none, none,
                "ids of exchanges that must finish before this one starts"));
  t.push_back(
      P(S::exchange, "flags", T::object, "", json::object(), none, none, "flag overrides for this exchange"));
  t.push_back(P(S::exchange, "faults", T::array, "", json::array(), none, none,
                "faults injected into this exchange"));

  // Faults.
  t.push_back(required(choices(P(S::fault, "kind", T::enumeration, "", null, none, none,
                                 "receiver_close: the receiver closes early; rpc_error: the first RPC on the "
                                 "channel answered at or after at_s fails; cancel: the query is cancelled"),
                               {"receiver_close", "rpc_error", "cancel"})));
  t.push_back(required(P(S::fault, "at_s", T::number, "s", null, 0, 1e9, "simulated time of the fault")));
  t.push_back(
      derived(P(S::fault, "sender", T::integer, "index", null, 0, none, "sender instance index (rpc_error)"),
              "required for rpc_error"));
  t.push_back(derived(P(S::fault, "receiver", T::integer, "index", null, 0, none,
                        "receiver instance index (receiver_close, rpc_error)"),
                      "required for receiver_close and rpc_error"));
  return t;
}

} // namespace

const std::vector<ParamSpec>& parameter_table() {
  static const std::vector<ParamSpec> table = build_table();
  return table;
}

const ParamSpec* find_param(Section section, const std::string& name) {
  for (const auto& p : parameter_table())
    if (p.section == section && p.name == name) return &p;
  return nullptr;
}

std::vector<const ParamSpec*> params_of(Section section) {
  std::vector<const ParamSpec*> out;
  for (const auto& p : parameter_table())
    if (p.section == section) out.push_back(&p);
  return out;
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
  std::string d = p.description;
  if (!p.unit.empty()) d += " [" + p.unit + "]";
  if (!p.derived.empty()) d += " (default: " + p.derived + ")";
  s["description"] = d;
  if (!p.default_value.is_null()) s["default"] = p.default_value;
  return s;
}

json object_schema(Section section, const std::map<std::string, json>& nested = {}) {
  json props = json::object();
  json req = json::array();
  for (const ParamSpec* p : params_of(section)) {
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
  json exchange_flags = flags;
  const json exchange = object_schema(
      Section::exchange, {{"flags", exchange_flags}, {"faults", {{"type", "array"}, {"items", fault}}}});
  json defaults = exchange;
  defaults["properties"].erase("id");
  defaults["properties"].erase("faults");
  defaults.erase("required");
  json top = object_schema(
      Section::scenario,
      {{"cluster", object_schema(Section::cluster)},
       {"flags", flags},
       {"queries", {{"type", "object"}, {"additionalProperties", object_schema(Section::query)}}},
       {"exchange_defaults", defaults},
       {"exchanges", {{"type", "array"}, {"minItems", 1}, {"items", exchange}}}});
  top["$schema"] = "https://json-schema.org/draft/2020-12/schema";
  top["$id"] = "exsim-scenario-v1";
  top["title"] = "exsim scenario";
  return top;
}

std::string parameters_help() {
  std::string out;
  for (Section s : {Section::scenario, Section::cluster, Section::flags, Section::query, Section::exchange,
                    Section::fault}) {
    out += fmt::format("\n{}:\n", to_string(s));
    for (const ParamSpec* p : params_of(s)) {
      std::string def = p->required ? "required" : !p->derived.empty() ? p->derived : p->default_value.dump();
      out += fmt::format("  {:<34} {:<12} default {:<22} {}\n", p->name, p->unit.empty() ? "-" : p->unit, def,
                         describe_expectation(*p));
      out += fmt::format("  {:<34} {}\n", "", p->description);
    }
  }
  return out;
}

} // namespace exsim
