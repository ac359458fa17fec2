// The parameter table binds: each row of a bound section (cluster, flags, costs, an exchange, its
// faults, queries, fragments, operators) sets exactly one member of its struct, every member is set
// by a row or named here as set by the parser (a reference, a tree, a value derived from others),
// and a struct read from an empty object holds the table's defaults.
#include "aggregate_members.hpp"
#include "input/parameter_docs.hpp"
#include "input/parameters.hpp"
#include "input/remote_scan.hpp"

#include <catch2/catch.hpp>

#include <algorithm>
#include <set>
#include <string>
#include <vector>

using namespace exsim;
using exsim::test::member_count;
using exsim::test::offsets_of;
using nlohmann::json;

namespace {

// Every row (of any schema version) of `sections` that sets a member of T.
template <class T> std::vector<const ParamSpec*> rows_binding(const std::vector<Section>& sections) {
  std::vector<const ParamSpec*> out;
  for (const ParamSpec& p : parameter_table())
    if (std::find(sections.begin(), sections.end(), p.section) != sections.end() &&
        std::holds_alternative<FieldBinding<T>>(p.binds))
      out.push_back(&p);
  return out;
}
template <class T> std::vector<const ParamSpec*> rows_binding(Section section) {
  return rows_binding<T>(std::vector<Section>{section});
}

// The row's member of `t` as JSON.
template <class T> json member(const ParamSpec& p, const T& t) {
  return std::get<FieldBinding<T>>(p.binds).get(t);
}

// What the row's member holds when the key is not given: its default, or for a row without one
// (required, or derived by the parser) the binding's `absent` value.
template <class T> json unset_value(const ParamSpec& p) {
  return p.default_value.is_null() ? std::get<FieldBinding<T>>(p.binds).absent : p.default_value;
}

// Each row of `sections` sets a member of its own, every member of T is set by a row or is in
// `set_by_parser` (and not both), and T read from empty objects holds each row's default.
template <class T>
void check_binds_every_member(const std::vector<Section>& sections, size_t rows_expected,
                              const std::set<size_t>& set_by_parser = {}) {
  const std::vector<const ParamSpec*> rows = rows_binding<T>(sections);
  CHECK(rows.size() == rows_expected);
  std::set<size_t> offsets;
  for (const ParamSpec* p : rows) {
    INFO(section_key(p->section) << "." << p->name);
    CHECK(offsets.insert(std::get<FieldBinding<T>>(p->binds).offset).second);
    CHECK(set_by_parser.count(std::get<FieldBinding<T>>(p->binds).offset) == 0);
  }
  INFO("members of the struct: " << member_count<T>() << ", members the rows set: " << offsets.size()
                                 << ", members the parser sets: " << set_by_parser.size());
  CHECK(offsets.size() + set_by_parser.size() == member_count<T>());
  T t{};
  for (Section section : sections)
    bind_fields(section, json::object(), t);
  for (const ParamSpec* p : rows) {
    INFO(section_key(p->section) << "." << p->name << ": table default " << unset_value<T>(*p).dump()
                                 << ", read " << member(*p, t).dump());
    CHECK(member(*p, t) == unset_value<T>(*p));
  }
}
template <class T>
void check_binds_every_member(Section section, size_t rows_expected,
                              const std::set<size_t>& set_by_parser = {}) {
  check_binds_every_member<T>(std::vector<Section>{section}, rows_expected, set_by_parser);
}

// A value of the row other than the one it holds when not given, of its type.
template <class T> json another_value(const ParamSpec& p) {
  const json base = unset_value<T>(p);
  switch (p.type) {
  case ParamType::boolean:
    return !base.get<bool>();
  case ParamType::enumeration:
    return p.choices.front() == base ? p.choices.back() : p.choices.front();
  case ParamType::integer:
    return base.get<int64_t>() + 1 <= p.max.value_or(1e18) ? base.get<int64_t>() + 1
                                                           : base.get<int64_t>() - 1;
  case ParamType::string:
    return base.get<std::string>() + "x";
  case ParamType::number_array:
    return json::array({0.5, 2});
  default:
    return base.get<double>() + 0.25 <= p.max.value_or(1e18) ? base.get<double>() + 0.25
                                                             : base.get<double>() / 2;
  }
}

// Setting one row's key changes its member and no other.
template <class T> void check_each_row_sets_its_member(Section section) {
  const std::vector<const ParamSpec*> rows = rows_binding<T>(section);
  for (const ParamSpec* p : rows) {
    const json value = another_value<T>(*p);
    T t{};
    bind_fields(section, json{{p->name, value}}, t);
    for (const ParamSpec* q : rows) {
      INFO(section_key(section) << "." << p->name << " = " << value.dump() << "; " << q->name << " read as "
                                << member(*q, t).dump());
      CHECK(member(*q, t) == (q == p ? value : unset_value<T>(*q)));
    }
  }
}

} // namespace

TEST_CASE("every cluster row sets one member of ClusterSpec, and every member is set by a row",
          "[unit][parameters]") {
  check_binds_every_member<ClusterSpec>(Section::cluster, params_of(Section::cluster).size());
  check_each_row_sets_its_member<ClusterSpec>(Section::cluster);
}

TEST_CASE("cluster.network_model is read by the name each model is registered under", "[unit][parameters]") {
  for (const NetworkModelKind& k : network_model_kinds()) {
    ClusterSpec c{};
    bind_fields(Section::cluster, json{{"network_model", k.name}}, c);
    INFO("network_model " << k.name);
    CHECK(c.network_model == k.model);
  }
}

TEST_CASE("every flag row sets one member of Flags, and every member is set by a row", "[unit][parameters]") {
  check_binds_every_member<Flags>(Section::flags, params_of(Section::flags).size());
  check_each_row_sets_its_member<Flags>(Section::flags);
}

TEST_CASE("every cost row sets one member of OperatorCosts, and every member is set by a row",
          "[unit][parameters]") {
  check_binds_every_member<OperatorCosts>(Section::costs, params_of(Section::costs).size());
  check_each_row_sets_its_member<OperatorCosts>(Section::costs);
}

TEST_CASE("an exchange's row shape and CPU costs are set by its rows", "[unit][parameters]") {
  check_binds_every_member<BatchShape>(Section::exchange, 4);
  check_each_row_sets_its_member<BatchShape>(Section::exchange);
  check_binds_every_member<CpuCosts>(Section::exchange, 5);
  check_each_row_sets_its_member<CpuCosts>(Section::exchange);
}

TEST_CASE("an exchange's plain values are set by its rows, the rest of ExchangeSpec by the parser",
          "[unit][parameters]") {
  // shape and costs: their own structs' rows (above); the fragments, the index, the effective
  // flags, the sender built from them, the faults (their own rows) and `expected` as text: the parser.
  check_binds_every_member<ExchangeSpec>(
      Section::exchange, 13,
      offsets_of(&ExchangeSpec::sender_fragment, &ExchangeSpec::receiver_fragment, &ExchangeSpec::shape,
                 &ExchangeSpec::costs, &ExchangeSpec::index, &ExchangeSpec::flags,
                 &ExchangeSpec::k_set_by_exchange, &ExchangeSpec::sender, &ExchangeSpec::faults,
                 &ExchangeSpec::expected_json));
  check_each_row_sets_its_member<ExchangeSpec>(Section::exchange);
  check_binds_every_member<StandaloneEnds>(Section::exchange, 4);
  check_each_row_sets_its_member<StandaloneEnds>(Section::exchange);
  // partitioning's choices are the kinds' table, in Partitioning's order.
  for (const std::string& name : partitioning_names()) {
    ExchangeSpec e{};
    bind_fields(Section::exchange, json{{"partitioning", name}}, e);
    Partitioning p{};
    REQUIRE(parse_partitioning(name, p));
    CHECK(e.partitioning == p);
  }
}

TEST_CASE("every fault row sets one member of FaultSpec, and every member is set by a row",
          "[unit][parameters]") {
  check_binds_every_member<FaultSpec>(Section::fault, params_of(Section::fault).size());
  check_each_row_sets_its_member<FaultSpec>(Section::fault);
  FaultSpec f{};
  bind_fields(Section::fault, json{{"kind", "cancel"}, {"at_s", 2}}, f);
  CHECK((f.kind == FaultKind::cancel && f.sender == -1 && f.receiver == -1));
  bind_fields(Section::fault, json{{"kind", "rpc_error"}, {"at_s", 2}, {"sender", 3}, {"receiver", 4}}, f);
  CHECK((f.kind == FaultKind::rpc_error && f.sender == 3 && f.receiver == 4));
  bind_fields(Section::fault, json{{"kind", "receiver_close"}, {"at_s", 2}, {"receiver", 1}}, f);
  CHECK(f.kind == FaultKind::receiver_close);
}

TEST_CASE("a query's name is set by its row, the rest of QuerySpec by the parser", "[unit][parameters]") {
  // exchange_only: the form; fragments and exchanges: the plan; startup_s: costs.query_startup_s;
  // expected_json: the `expected` object's text; flags and costs: the query's own objects bound over
  // the scenario's sections.
  check_binds_every_member<QuerySpec>(Section::query, 1,
                                      offsets_of(&QuerySpec::exchange_only, &QuerySpec::fragments,
                                                 &QuerySpec::exchanges, &QuerySpec::startup_s,
                                                 &QuerySpec::expected_json, &QuerySpec::flags, &QuerySpec::costs));
  check_each_row_sets_its_member<QuerySpec>(Section::query);
}

TEST_CASE("a fragment's id and placement are set by its rows, the rest of FragmentSpec by the parser",
          "[unit][parameters]") {
  // ops, root, sink, sink_*: the tree and its references; start_s, after_exchanges: the
  // exchange-only form's, from the exchange's keys.
  check_binds_every_member<FragmentSpec>(
      Section::fragment, 4,
      offsets_of(&FragmentSpec::ops, &FragmentSpec::root, &FragmentSpec::sink, &FragmentSpec::sink_exchange,
                 &FragmentSpec::sink_join_fragment, &FragmentSpec::sink_join_op, &FragmentSpec::start_s,
                 &FragmentSpec::after_exchanges));
  check_each_row_sets_its_member<FragmentSpec>(Section::fragment);
}

TEST_CASE("an operator's plain values are set by its rows, references and the tree by the parser",
          "[unit][parameters]") {
  // inputs, exchange, build_fragment, runtime_filters: the tree and references; ns_per_row,
  // rows_exact, instance_factors: the exchange-only form's producer and consumer.
  check_binds_every_member<OpSpec>(Section::op, 12,
                                   offsets_of(&OpSpec::inputs, &OpSpec::runtime_filters, &OpSpec::exchange,
                                              &OpSpec::build_fragment, &OpSpec::ns_per_row,
                                              &OpSpec::rows_exact, &OpSpec::instance_factors));
  check_each_row_sets_its_member<OpSpec>(Section::op);
  OpSpec o{};
  bind_fields(Section::op, json::object(), o);
  CHECK((o.shared_build && o.limit == -1 && !o.partitioned && o.phase == AggregatePhase::finalize &&
         o.instance_weights.empty()));
  // The `op` row's choices are OpKind's values in order.
  const ParamSpec* kind = find_param(Section::op, "op");
  REQUIRE(kind != nullptr);
  const std::vector<OpKind> kinds{
      OpKind::scan,      OpKind::exchange, OpKind::hash_join, OpKind::nested_loop_join,
      OpKind::aggregate, OpKind::sort,     OpKind::top_n,     OpKind::analytic,
      OpKind::select,    OpKind::limit,    OpKind::union_all};
  REQUIRE(kind->choices.size() == kinds.size());
  for (size_t i = 0; i < kinds.size(); ++i) {
    bind_fields(Section::op, json{{"op", kind->choices[i]}}, o);
    INFO("op " << kind->choices[i]);
    CHECK(o.kind == kinds[i]);
  }
}

TEST_CASE("an enumeration flag is read by its name", "[unit][parameters]") {
  auto read = [](const char* name, const char* value) {
    Flags f{};
    bind_fields(Section::flags, json{{name, value}}, f);
    return f;
  };
  CHECK(read("eos_flush", "serial").eos_flush == EosFlush::serial);
  CHECK(read("eos_flush", "pipelined").eos_flush == EosFlush::pipelined);
  CHECK(read("runtime_filter_mode", "OFF").runtime_filter_mode == RuntimeFilterMode::off);
  CHECK(read("runtime_filter_mode", "LOCAL").runtime_filter_mode == RuntimeFilterMode::local);
  CHECK(read("runtime_filter_mode", "GLOBAL").runtime_filter_mode == RuntimeFilterMode::global);
  for (const std::string& name : window_policy_names()) {
    WindowPolicyKind k{};
    REQUIRE(parse_window_policy(name, k));
    CHECK(read("rpcs_in_flight_policy", name.c_str()).rpcs_in_flight_policy == k);
  }
}

TEST_CASE("params --format json names each row's scope and the struct it sets", "[unit][parameters]") {
  const json rows = parameters_json().at("parameters");
  auto row = [&](const char* section, const char* name) {
    for (const json& r : rows)
      if (r.at("section") == section && r.at("name") == name) return r;
    FAIL("no row " << section << "." << name);
    return json();
  };
  const json svc = row("flags", "datastream_service_num_svc_threads");
  CHECK((svc.at("scope") == "daemon" && svc.at("binds") == "Flags"));
  CHECK(svc.at("description").get<std::string>().ends_with("(daemon-wide: top-level flags only)"));
  const json k = row("flags", "rpcs_in_flight_max");
  CHECK((k.at("scope") == "exchange" && k.at("binds") == "Flags" && k.at("default") == 8));
  CHECK((row("costs", "scan_ns_per_row").at("binds") == "OperatorCosts"));
  CHECK((row("exchange", "fixed_row_bytes").at("binds") == "BatchShape"));
  CHECK((row("exchange", "hash_ns_per_row").at("binds") == "CpuCosts"));
  CHECK((row("exchange", "rows_total").at("binds") == "ExchangeSpec" &&
         row("exchange", "after").at("binds") == ""));
  CHECK((row("exchange", "start_s").at("binds") == "StandaloneEnds"));
  CHECK((row("cluster", "rtt_us").at("scope") == "cluster" &&
         row("cluster", "rtt_us").at("binds") == "ClusterSpec"));
  CHECK((row("fragment", "executors").at("scope") == "query" &&
         row("fragment", "executors").at("binds") == "FragmentSpec"));
  CHECK((row("op", "limit").at("binds") == "OpSpec" && row("op", "exchange").at("binds") == ""));
}

TEST_CASE("the remote scan's rows each set one member, and a scenario setting nothing holds their defaults",
          "[unit][parameters]") {
  const json doc = {
      {"schema_version", 2}, {"kind", "remote_scan"}, {"splits", {{"count", 1}, {"data_bytes_total", 1}}}};
  // Set by the loading: the prefetch and the split sizes; of the prefetch, the adaptive policy and
  // its cap, the time-to-first-byte table (levels and values), the executor's seed, the series' cap.
  check_binds_every_member<RemoteScanScenario>(
      {Section::remote_scan_cluster, Section::remote_scan_s3}, 4,
      offsets_of(&RemoteScanScenario::prefetch, &RemoteScanScenario::split_bytes));
  check_binds_every_member<PrefetchConfig>(
      {Section::remote_scan, Section::remote_scan_s3, Section::remote_scan_splits,
       Section::remote_scan_prefetch, Section::remote_scan_scan},
      15,
      offsets_of(&PrefetchConfig::split_policy, &PrefetchConfig::split_max,
                 &PrefetchConfig::max_series_points, &PrefetchConfig::ttfb_quantile_levels,
                 &PrefetchConfig::ttfb_quantiles_s, &PrefetchConfig::seed));
  // Seconds from a row in milliseconds, as a scenario setting nothing reads them.
  CHECK(load_remote_scan(doc, "defaults").remote_scan->prefetch.ttfb_p50_s == 0.1);
}

TEST_CASE("scan.consumption is read by its name", "[unit][parameters]") {
  const ParamSpec* row = find_param(Section::remote_scan_scan, "consumption");
  REQUIRE(row != nullptr);
  const std::vector<Consumption> in_order = {Consumption::ready_first, Consumption::planned_first,
                                             Consumption::in_order};
  REQUIRE(row->choices.size() == in_order.size());
  for (size_t i = 0; i < in_order.size(); ++i) {
    PrefetchConfig p{};
    bind_fields(Section::remote_scan_scan, json{{"consumption", row->choices[i]}}, p);
    INFO("consumption " << row->choices[i]);
    CHECK(p.consumption == in_order[i]);
  }
}
