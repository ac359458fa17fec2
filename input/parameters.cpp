#include "input/parameters.hpp"

#include "input/param_rows.hpp"

#include "input/remote_scan.hpp"
#include "input/rules.hpp"

#include "models/exchange/partitioning.hpp"
#include "models/network/network_model.hpp"
#include "models/window/window_policy.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
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

std::vector<ParamSpec> build_table() {
  std::vector<ParamSpec> t;
  param_rows::add_scenario_rows(t);
  param_rows::add_cluster_rows(t);
  param_rows::add_flags_rows(t);
  param_rows::add_costs_rows(t);
  param_rows::add_query_rows(t);
  param_rows::add_exchange_rows(t);
  param_rows::add_remote_scan_rows(t);
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

template <class T> void bind_given(Section section, const json& obj, T& out) {
  for (const ParamSpec& p : parameter_table()) {
    const auto* b = std::get_if<FieldBinding<T>>(&p.binds);
    if (p.section == section && b != nullptr && obj.contains(p.name)) b->set(obj.at(p.name), out);
  }
}

void GivenKeys::add(const GivenKeys& other) {
  names.insert(other.names.begin(), other.names.end());
  integral_floats.insert(other.integral_floats.begin(), other.integral_floats.end());
}

namespace {

// A double that an int64_t holds exactly.
bool integral_double(double d) { return std::trunc(d) == d && std::fabs(d) < 9223372036854775808.0; }

} // namespace

GivenKeys given_keys(Section section, const json& obj, int version) {
  GivenKeys g;
  for (const auto& [key, v] : obj.items()) {
    g.names.insert(key);
    const ParamSpec* p = find_param(section, key, version);
    if (p != nullptr && p->type == ParamType::number && v.is_number_float() && integral_double(v.get<double>()))
      g.integral_floats.insert(key);
  }
  return g;
}

template <class T> json echo_fields(Section section, const T& in, int version, const GivenKeys& given) {
  json out = json::object();
  for (const ParamSpec* p : params_of(section, version)) {
    const auto* b = std::get_if<FieldBinding<T>>(&p->binds);
    if (b == nullptr) continue;
    const bool given_here = given.names.count(p->name) > 0;
    if (!given_here && (p->default_value.is_null() || p->listed_when_set)) continue; // as with_defaults
    json v = b->get(in);
    // A number the file (or the row's default) wrote without a fraction reads back as such.
    const bool written_as_float =
        given_here ? given.integral_floats.count(p->name) > 0 : p->default_value.is_number_float();
    if (p->type == ParamType::number && v.is_number_float() && integral_double(v.get<double>()) && !written_as_float)
      v = static_cast<int64_t>(v.get<double>());
    out[p->name] = std::move(v);
  }
  return out;
}

// Each function over the bound structs, for each struct of `Binding`.
#define EXSIM_BINDING_FUNCTIONS(T)                                                                                \
  template void bind_fields(Section, const json&, T&);                                                           \
  template void bind_given(Section, const json&, T&);                                                            \
  template json echo_fields(Section, const T&, int, const GivenKeys&);
EXSIM_BINDING_FUNCTIONS(ClusterSpec)
EXSIM_BINDING_FUNCTIONS(Flags)
EXSIM_BINDING_FUNCTIONS(OperatorCosts)
EXSIM_BINDING_FUNCTIONS(BatchShape)
EXSIM_BINDING_FUNCTIONS(CpuCosts)
EXSIM_BINDING_FUNCTIONS(QuerySpec)
EXSIM_BINDING_FUNCTIONS(FaultSpec)
EXSIM_BINDING_FUNCTIONS(FragmentSpec)
EXSIM_BINDING_FUNCTIONS(OpSpec)
EXSIM_BINDING_FUNCTIONS(ExchangeSpec)
EXSIM_BINDING_FUNCTIONS(StandaloneEnds)
EXSIM_BINDING_FUNCTIONS(RemoteScanScenario)
EXSIM_BINDING_FUNCTIONS(PrefetchConfig)
#undef EXSIM_BINDING_FUNCTIONS

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
      object_schema(Section::query, {{"fragments", fragments}, {"exchanges", exchanges}, {"parallel", plan},
                                     {"flags", flags}, {"costs", object_schema(Section::costs)}});
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
