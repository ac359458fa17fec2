#include "input/parameters.hpp"

#include "input/param_rows.hpp"

#include "input/remote_scan.hpp"

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

} // namespace exsim
