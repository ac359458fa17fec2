// The parameter table binds: each row of a bound section (cluster, flags, costs, an exchange's row
// shape and CPU costs) sets exactly one member of its struct, every member is set by a row, and a
// struct read from an empty object holds the table's defaults.
#include "input/parameters.hpp"
#include "input/remote_scan.hpp"

#include <catch2/catch.hpp>

#include <set>
#include <string>
#include <vector>

using namespace exsim;
using nlohmann::json;

namespace {

// Members of an aggregate: the most values it can be brace-initialised from (its members are
// scalars and enumerations, so no brace elision counts one member twice).
struct AnyValue {
  template <class T> operator T() const; // NOLINT: only named in unevaluated contexts
};
template <class T, class... A> constexpr size_t member_count() {
  if constexpr (requires { T{A{}..., AnyValue{}}; })
    return member_count<T, A..., AnyValue>();
  else
    return sizeof...(A);
}

// Every row (of any schema version) of `section` that sets a member of T.
template <class T> std::vector<const ParamSpec*> rows_binding(Section section) {
  std::vector<const ParamSpec*> out;
  for (const ParamSpec& p : parameter_table())
    if (p.section == section && std::holds_alternative<FieldBinding<T>>(p.binds)) out.push_back(&p);
  return out;
}

// The row's member of `t` as JSON.
template <class T> json member(const ParamSpec& p, const T& t) {
  return std::get<FieldBinding<T>>(p.binds).get(t);
}

// Each row sets a member of its own, every member of T is set, and T read from an empty object
// holds each row's default.
template <class T> void check_binds_every_member(Section section, size_t rows_expected) {
  const std::vector<const ParamSpec*> rows = rows_binding<T>(section);
  CHECK(rows.size() == rows_expected);
  std::set<size_t> offsets;
  for (const ParamSpec* p : rows) {
    INFO(section_key(section) << "." << p->name);
    CHECK(offsets.insert(std::get<FieldBinding<T>>(p->binds).offset).second);
  }
  INFO("members of the struct: " << member_count<T>() << ", members the rows set: " << offsets.size());
  CHECK(offsets.size() == member_count<T>());
  T t{};
  bind_fields(section, json::object(), t);
  for (const ParamSpec* p : rows) {
    INFO(section_key(section) << "." << p->name << ": table default " << p->default_value.dump() << ", read "
                              << member(*p, t).dump());
    CHECK(member(*p, t) == p->default_value);
  }
}

// A value of the row other than its default, within its check.
json another_value(const ParamSpec& p) {
  switch (p.type) {
  case ParamType::boolean:
    return !p.default_value.get<bool>();
  case ParamType::enumeration:
    return p.choices.front() == p.default_value ? p.choices.back() : p.choices.front();
  case ParamType::integer:
    return p.default_value.get<int64_t>() + 1 <= p.max.value_or(1e18) ? p.default_value.get<int64_t>() + 1
                                                                      : p.default_value.get<int64_t>() - 1;
  default:
    return p.default_value.get<double>() + 0.25 <= p.max.value_or(1e18) ? p.default_value.get<double>() + 0.25
                                                                        : p.default_value.get<double>() / 2;
  }
}

// Setting one row's key changes its member and no other.
template <class T> void check_each_row_sets_its_member(Section section) {
  const std::vector<const ParamSpec*> rows = rows_binding<T>(section);
  for (const ParamSpec* p : rows) {
    const json value = another_value(*p);
    T t{};
    bind_fields(section, json{{p->name, value}}, t);
    for (const ParamSpec* q : rows) {
      INFO(section_key(section) << "." << p->name << " = " << value.dump() << "; " << q->name << " read as "
                                << member(*q, t).dump());
      CHECK(member(*q, t) == (q == p ? value : q->default_value));
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
  CHECK((row("cluster", "rtt_us").at("scope") == "cluster" &&
         row("cluster", "rtt_us").at("binds") == "ClusterSpec"));
  CHECK((row("fragment", "executors").at("scope") == "query" &&
         row("fragment", "executors").at("binds") == ""));
}

namespace {

// Every row, of any section, that sets a member of T.
template <class T> std::vector<const ParamSpec*> rows_binding_anywhere() {
  std::vector<const ParamSpec*> out;
  for (const ParamSpec& p : parameter_table())
    if (std::holds_alternative<FieldBinding<T>>(p.binds)) out.push_back(&p);
  return out;
}

// Each row sets a member of its own, and T as `read` holds each row's default (but where the
// loading derives it from other keys); `set_by_code`:
// the members the loading sets itself.
template <class T> void check_rows_set_distinct_members(const T& read, size_t set_by_code) {
  std::set<size_t> offsets;
  for (const ParamSpec* p : rows_binding_anywhere<T>()) {
    INFO(section_key(p->section) << "." << p->name << ": table default " << p->default_value.dump()
                                 << ", read " << member(*p, read).dump());
    CHECK(offsets.insert(std::get<FieldBinding<T>>(p->binds).offset).second);
    if (p->derived.empty()) CHECK(member(*p, read) == p->default_value); // else the loading derives it
  }
  INFO("members of the struct: " << member_count<T>() << ", set by rows: " << offsets.size()
                                 << ", by the loading: " << set_by_code);
  CHECK(offsets.size() + set_by_code == member_count<T>());
}

} // namespace

TEST_CASE("the remote scan's rows each set one member, and a scenario setting nothing holds their defaults",
          "[unit][parameters]") {
  const json doc = {
      {"schema_version", 2}, {"kind", "remote_scan"}, {"splits", {{"count", 1}, {"data_bytes_total", 1}}}};
  const Scenario sc = load_remote_scan(doc, "defaults");
  // Set by the loading: the prefetch and the split sizes; of the prefetch, the adaptive policy and
  // its cap, the time-to-first-byte table (levels and values), the executor's seed, the series' cap.
  check_rows_set_distinct_members(*sc.remote_scan, 2);
  check_rows_set_distinct_members(sc.remote_scan->prefetch, 6);
  // Seconds from a row in milliseconds.
  CHECK(sc.remote_scan->prefetch.ttfb_p50_s == 0.1);
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
