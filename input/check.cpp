#include "input/check.hpp"

#include "input/suggest.hpp"

#include <algorithm>
#include <cmath>

namespace exsim {

using nlohmann::json;

std::string join_path(const std::string& base, const std::string& key) {
  return base.empty() ? key : base + "." + key;
}

std::string show(const json& v) {
  std::string s = v.dump();
  return s.size() > 60 ? s.substr(0, 57) + "..." : s;
}

const char* json_kind(const json& v) {
  switch (v.type()) {
  case json::value_t::null:
    return "null";
  case json::value_t::boolean:
    return "a boolean";
  case json::value_t::number_integer:
  case json::value_t::number_unsigned:
    return "an integer";
  case json::value_t::number_float:
    return "a number";
  case json::value_t::string:
    return "a string";
  case json::value_t::array:
    return "an array";
  case json::value_t::object:
    return "an object";
  default:
    return "a value";
  }
}

bool is_integral(const json& v) {
  if (v.is_number_integer()) return true;
  if (!v.is_number_float()) return false;
  const double d = v.get<double>();
  return std::isfinite(d) && d == std::floor(d) && std::fabs(d) < 9.0e15;
}

bool in_range(const ParamSpec& p, double d) {
  // A subnormal passes "> 0" but no computation with it is meaningful (a rate of 5e-324 never ends).
  if (!std::isfinite(d) || std::fpclassify(d) == FP_SUBNORMAL) return false;
  if (p.min && (p.min_exclusive ? !(d > *p.min) : !(d >= *p.min))) return false;
  if (p.max && !(d <= *p.max)) return false;
  return true;
}

void check_value(const ParamSpec& p, const json& v, const std::string& path, Errors& err) {
  const std::string expected = "expected " + describe_expectation(p);
  auto bad = [&] { err.add(path, fmt::format("{}, got {}", expected, show(v))); };
  switch (p.type) {
  case ParamType::integer:
    if (!is_integral(v) || !in_range(p, v.get<double>())) bad();
    break;
  case ParamType::number:
    if (!v.is_number() || !std::isfinite(v.get<double>()) || !in_range(p, v.get<double>())) bad();
    break;
  case ParamType::boolean:
    if (!v.is_boolean()) bad();
    break;
  case ParamType::string:
    if (!v.is_string()) bad();
    break;
  case ParamType::enumeration:
    if (!v.is_string() ||
        std::find(p.choices.begin(), p.choices.end(), v.get<std::string>()) == p.choices.end())
      bad();
    break;
  case ParamType::object:
    if (!v.is_object()) bad();
    break;
  case ParamType::number_array:
    if (!v.is_array()) {
      bad();
      break;
    }
    for (size_t i = 0; i < v.size(); ++i)
      if (!v[i].is_number() || !in_range(p, v[i].get<double>()))
        err.add(fmt::format("{}[{}]", path, i), fmt::format("{}, got {}", expected, show(v[i])));
    break;
  case ParamType::string_array:
    if (!v.is_array()) {
      bad();
      break;
    }
    for (size_t i = 0; i < v.size(); ++i)
      if (!v[i].is_string())
        err.add(fmt::format("{}[{}]", path, i), fmt::format("expected a string, got {}", show(v[i])));
    break;
  case ParamType::array:
    if (!v.is_array() || (p.min && v.size() < static_cast<size_t>(*p.min))) bad();
    break;
  }
}

std::vector<std::string> key_names(Section s, int version, const std::set<std::string>& excluded,
                                   bool in_query) {
  std::vector<std::string> out;
  for (const ParamSpec* p : params_of(s, version))
    if (!excluded.count(p->name) && !(in_query && p->standalone_only)) out.push_back(p->name);
  return out;
}

std::string known_keys(Section s, int version, const std::set<std::string>& excluded, bool in_query) {
  std::string out;
  for (const std::string& name : key_names(s, version, excluded, in_query))
    out += (out.empty() ? "" : ", ") + name;
  return out;
}

// Checks an object's keys and values against a section of the table. Nested objects and arrays
// are checked by the caller. `in_query`: the object is an exchange of a query, which has no
// placement, rows or producer of its own.
void check_object(Section s, const json& obj, const std::string& path, Errors& err, int version,
                  const std::set<std::string>& excluded, bool enforce_required, bool in_query) {
  if (!obj.is_object()) {
    err.add(path, fmt::format("expected an object, got {}", json_kind(obj)));
    return;
  }
  for (const auto& [key, value] : obj.items()) {
    const ParamSpec* p = find_param(s, key, version);
    if (p && in_query && p->standalone_only) {
      err.add(join_path(path, key),
              "not a key of a query's exchange: its senders, receivers and rows come from its fragments");
      continue;
    }
    if (!p || excluded.count(key)) {
      const ParamSpec* old = removed_param(s, key, version);
      if (old && !old->replaced_by.empty())
        err.add(join_path(path, key), fmt::format("removed in schema_version {}; use {}", old->until + 1,
                                                  old->replaced_by));
      else
        err.add(join_path(path, key),
                fmt::format("unknown key;{} expected one of: {}",
                            did_you_mean(key, key_names(s, version, excluded, in_query)),
                            known_keys(s, version, excluded, in_query)));
      continue;
    }
    check_value(*p, value, join_path(path, key), err);
  }
  if (enforce_required)
    for (const ParamSpec* p : params_of(s, version))
      if (p->required && !excluded.count(p->name) && !(in_query && p->standalone_only) && !obj.contains(p->name))
        err.add(join_path(path, p->name), "required key is missing; expected " + describe_expectation(*p));
}

// Fills the table's defaults into an object (keys with a null default, or listed only when set,
// are left absent).
json with_defaults(Section s, json obj, int version, bool in_query) {
  for (const ParamSpec* p : params_of(s, version))
    if (!obj.contains(p->name) && !p->default_value.is_null() && !p->listed_when_set &&
        !(in_query && p->standalone_only))
      obj[p->name] = p->default_value;
  return obj;
}

json bindable_values(Section s, const json& obj, int version) {
  json out = json::object();
  if (!obj.is_object()) return out;
  for (const auto& [key, v] : obj.items()) {
    const ParamSpec* p = find_param(s, key, version);
    if (p == nullptr) continue;
    Errors found("");
    check_value(*p, v, key, found);
    if (!found.any()) out[key] = v;
  }
  return out;
}

// Integral JSON numbers written as floats (2e6) are stored as integers from here on.
void normalise_integers(Section s, json& obj, int version) {
  for (const ParamSpec* p : params_of(s, version))
    if (p->type == ParamType::integer && obj.contains(p->name) && obj[p->name].is_number_float())
      obj[p->name] = static_cast<int64_t>(obj[p->name].get<double>());
}

uint64_t read_seed(const json& doc) {
  if (!doc.contains("seed")) return 1;
  const json& v = doc["seed"];
  if (v.is_number_unsigned() || v.is_number_integer()) return v.get<uint64_t>(); // checked >= 0
  return static_cast<uint64_t>(v.get<double>()); // an integral float below 2^53 (is_integral)
}

std::string default_scenario_name(const std::string& file) {
  std::string stem = file;
  const size_t slash = stem.find_last_of('/');
  if (slash != std::string::npos) stem = stem.substr(slash + 1);
  if (stem.size() > 5 && stem.compare(stem.size() - 5, 5, ".json") == 0) stem.resize(stem.size() - 5);
  return stem;
}

} // namespace exsim
