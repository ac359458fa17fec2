// Writing the parameter table's rows: a row (P) with its modifiers, its binding to the member it
// sets (binds), and each section's rows, one file each under input/rows/, which
// parameter_table() gathers in the table's order (the order of `exsim params` and of the schema).
//   t.push_back(binds(P(S::flags, "batch_size", T::integer, "rows", 1024, 1, 65536, "rows of a batch"),
//                     &Flags::batch_size));
#pragma once

#include "input/parameters.hpp"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <optional>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

namespace exsim::param_rows {

using nlohmann::json;

inline ParamSpec P(Section s, std::string name, ParamType t, std::string unit, json def, std::optional<double> min,
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

inline ParamSpec required(ParamSpec p) {
  p.required = true;
  return p;
}
inline ParamSpec derived(ParamSpec p, std::string how) {
  p.derived = std::move(how);
  return p;
}
inline ParamSpec exclusive_min(ParamSpec p) {
  p.min_exclusive = true;
  return p;
}
inline ParamSpec choices(ParamSpec p, std::vector<std::string> values) {
  p.choices = std::move(values);
  return p;
}
inline ParamSpec every_kind(ParamSpec p) {
  p.every_kind = true;
  return p;
}

inline ParamSpec only_until(ParamSpec p, int version, std::string replaced_by) {
  p.until = version;
  p.replaced_by = std::move(replaced_by);
  return p;
}
inline ParamSpec only_since(ParamSpec p, int version) {
  p.since = version;
  return p;
}
inline ParamSpec standalone(ParamSpec p) {
  p.standalone_only = true;
  return p;
}
inline ParamSpec daemon_wide(ParamSpec p) {
  p.daemon_wide = true;
  return p;
}
inline ParamSpec listed_when_set(ParamSpec p) {
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

// Each section's rows, appended in the table's order.
void add_scenario_rows(std::vector<ParamSpec>& t);    // input/rows/scenario.cpp
void add_cluster_rows(std::vector<ParamSpec>& t);     // input/rows/cluster.cpp
void add_flags_rows(std::vector<ParamSpec>& t);       // input/rows/flags.cpp
void add_costs_rows(std::vector<ParamSpec>& t);       // input/rows/costs.cpp
void add_query_rows(std::vector<ParamSpec>& t);       // input/rows/query.cpp: queries, fragments, operators
void add_exchange_rows(std::vector<ParamSpec>& t);    // input/rows/exchange.cpp: exchanges and their faults
void add_remote_scan_rows(std::vector<ParamSpec>& t); // input/rows/remote_scan.cpp

} // namespace exsim::param_rows
