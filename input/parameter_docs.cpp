// The parameter table for people and programs: `exsim params` (text and JSON) and the scenario
// files' JSON Schema (`exsim schema`), generated from the rows.
#include "input/parameter_docs.hpp"

#include "input/parameters.hpp"
#include "input/rules.hpp"

#include <fmt/format.h>

#include <type_traits>
#include <variant>

namespace exsim {

using nlohmann::json;

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
