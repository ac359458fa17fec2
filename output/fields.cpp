#include "output/fields.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

namespace exsim {

namespace {

template <class T> const char* struct_name();
template <> const char* struct_name<SenderCounters>() {
  return "SenderCounters";
}
template <> const char* struct_name<ReceiverCounters>() {
  return "ReceiverCounters";
}
template <> const char* struct_name<ExchangeRun>() {
  return "ExchangeRun";
}
template <> const char* struct_name<FragmentStats>() {
  return "FragmentStats";
}
template <> const char* struct_name<QueryRun>() {
  return "QueryRun";
}

template <class T> std::string qualified(const MemberRead<T>& m) {
  return fmt::format("{}::{}", struct_name<T>(), m.member);
}

std::vector<std::string> reads_of(const FieldSpec& f) {
  std::vector<std::string> out;
  for (const FieldRead& r : f.reads)
    out.push_back(member_name(r));
  return out;
}

} // namespace

std::string member_name(const FieldRead& r) {
  return std::visit([](const auto& m) { return qualified(m); }, r);
}

nlohmann::json fields_json() {
  nlohmann::json rows = nlohmann::json::array();
  for (const FieldSpec& f : field_table()) {
    nlohmann::json row = {{"section", to_string(f.section)},
                          {"path", section_path(f.section)},
                          {"name", f.name},
                          {"type", to_string(f.type)},
                          {"unit", f.unit},
                          {"reads", reads_of(f)},
                          {"workload_clock", f.workload_clock},
                          {"when", f.when},
                          {"meaning", f.meaning}};
    if (!f.choices.empty()) row["choices"] = f.choices;
    if (!f.label.empty()) row["label"] = f.label;
    if (!f.group.empty()) row["group"] = f.group;
    rows.push_back(std::move(row));
  }
  return {{"fields", std::move(rows)}};
}

std::string fields_text() {
  std::string out;
  for (FieldSection s : field_sections()) {
    const std::string path = section_path(s);
    if (s == FieldSection::carried)
      out += "\ncarried between query processes, written under no name of their own:\n";
    else
      out += fmt::format("\n{}:\n", path.empty() ? "top level" : path);
    for (const FieldSpec* f : fields_of(s)) {
      std::string line =
          fmt::format("  {:<34} {:<8} {:<6} {}", f->name, to_string(f->type), f->unit, f->meaning);
      if (!f->when.empty()) line += fmt::format(" [when: {}]", f->when);
      if (!f->choices.empty()) line += fmt::format(" [one of: {}]", fmt::join(f->choices, ", "));
      if (!f->reads.empty()) line += fmt::format(" [reads {}]", fmt::join(reads_of(*f), ", "));
      out += line + "\n";
    }
  }
  return out;
}

} // namespace exsim
