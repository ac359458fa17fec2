// The results field table (models/run_fields.hpp) as the results writer and other programs read it:
// the members a section's entry copies, and the table itself for `exsim fields`.
//   nlohmann::json out = exsim::member_fields(exsim::FieldSection::sender, counters, offset);
//   std::cout << exsim::fields_json().dump(1);   // exsim fields --format json
#pragma once

#include "models/run_fields.hpp"

#include <nlohmann/json.hpp>

#include <string>
#include <type_traits>

namespace exsim {

// The rows of `s` present in every entry that read one member of T alone, with their values: a
// time on the workload's clock plus `offset`, a status as its name. The writer adds the others.
template <class T> nlohmann::json member_fields(FieldSection s, const T& c, double offset) {
  nlohmann::json out = nlohmann::json::object();
  for (const FieldSpec* f : fields_of(s)) {
    const MemberRead<T>* m = sole_member<T>(*f);
    if (!m || !f->when.empty()) continue;
    std::visit(
        [&](auto ptr) {
          using V = std::remove_cvref_t<decltype(c.*ptr)>;
          if constexpr (std::is_same_v<V, double>)
            out[f->name] = f->workload_clock ? c.*ptr + offset : c.*ptr;
          else if constexpr (std::is_same_v<V, ExchangeStatus>)
            out[f->name] = to_string(c.*ptr);
          else if constexpr (std::is_arithmetic_v<V> || std::is_same_v<V, std::string>)
            out[f->name] = c.*ptr;
        },
        m->ptr);
  }
  return out;
}

// "SenderCounters::InactiveTotalTime": the member a read names.
std::string member_name(const FieldRead& r);

// `exsim fields --format json`: {"fields": [{"section", "path", "name", "type", "unit", "reads",
// "workload_clock", "when", "meaning", and "choices", "label", "group" where set}]}, in the table's order.
nlohmann::json fields_json();
// `exsim fields`: the table for people, a block per section.
std::string fields_text();

} // namespace exsim
