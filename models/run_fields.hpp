// The results' fields, one row each (as Impala declares each profile counter once, with its unit,
// where the node creates it): where the field sits in the results document, its name, type and
// unit, the members of the run's structs (run.hpp) it reads, and what it means. The results writer
// (output/results.cpp), the copy of a run between query processes (sim/simulation.cpp), `exsim
// fields` and the files generated from it (docs/fields.json, docs/results.schema.json, the tables of
// docs/results.md: tools/parameter_docs.py) read it. A new counter is its member, its row and its
// increment.
//   for (const exsim::FieldSpec* f : exsim::fields_of(exsim::FieldSection::sender)) ...
#pragma once

#include "models/run.hpp"

#include <cstdint>
#include <string>
#include <utility>
#include <variant>
#include <vector>

namespace exsim {

// Where a row's field sits in the results document of an exchange or query scenario ("kind"
// exchanges); `carried` holds members that are copied between processes and read by the writer
// but written under no name of their own.
enum class FieldSection {
  document,  // the top level
  scenario,  // scenario
  exchange,  // exchanges[]
  sender,    // exchanges[].sender_instances[]
  receiver,  // exchanges[].receiver_instances[]
  k_window,  // exchanges[].k_window
  query,     // queries[]
  fragment,  // queries[].fragments[]
  breakdown, // queries[].breakdown (and summary.breakdown_s_total, part by part)
  summary,   // summary
  carried
};
enum class FieldType { integer, number, boolean, string, object, array };

const char* to_string(FieldSection s);
const char* to_string(FieldType t);
// Every section, in the order of the enum.
std::vector<FieldSection> field_sections();
// The section's place in the results document as a path ("exchanges[].sender_instances[]"); ""
// for the top level and for `carried`.
const char* section_path(FieldSection s);

// K's change points of a sender, per receiver: (time, K from then on).
using KSeries = std::vector<std::vector<std::pair<double, int>>>;

// A member of a run struct, by its type: what the copy between processes and the writer read.
template <class T>
using MemberPtr = std::variant<int T::*, int64_t T::*, double T::*, bool T::*, std::string T::*,
                               ExchangeStatus T::*, Path T::*, KSeries T::*, std::vector<SenderCounters> T::*,
                               std::vector<ReceiverCounters> T::*, std::vector<FragmentStats> T::*,
                               std::vector<ExchangeRun> T::*>;
template <class T> struct MemberRead {
  const char* member; // its name in T
  MemberPtr<T> ptr;
};
// The structs whose members the rows read; a test ties every member of each to exactly one row.
using FieldRead = std::variant<MemberRead<SenderCounters>, MemberRead<ReceiverCounters>,
                               MemberRead<ExchangeRun>, MemberRead<FragmentStats>, MemberRead<QueryRun>>;

struct FieldSpec {
  FieldSection section;
  std::string name; // its key in the section's object
  FieldType type;
  std::string unit; // "s", "bytes", "B/s", "rows", "RPCs", ...; "" for a name, a flag or a count of things
  std::string meaning;
  std::string when;             // "": in every entry of its section; else when the entry has it
  std::vector<FieldRead> reads; // the members it reads; none: derived from other rows or from the scenario
  bool workload_clock = false;  // a time on the workload's clock: its member plus the query's clock offset
  std::vector<std::string> choices; // the values a string takes
  std::string label;                // a short label for tables and charts (the breakdown's parts)
  std::string group;                // the group tables that sum the breakdown's parts show it under
};

// Every row, by section in the order of FieldSection, in the order the documents list them.
const std::vector<FieldSpec>& field_table();
std::vector<const FieldSpec*> fields_of(FieldSection s);
// The row `name` of `s`; std::logic_error when there is none (the writer names only rows).
const FieldSpec& field(FieldSection s, const std::string& name);

// Every member of T the rows read, in the table's order: what a run's copy between processes
// carries.
template <class T> std::vector<MemberRead<T>> members_read() {
  std::vector<MemberRead<T>> out;
  for (const FieldSpec& f : field_table())
    for (const FieldRead& r : f.reads)
      if (const auto* m = std::get_if<MemberRead<T>>(&r)) out.push_back(*m);
  return out;
}

// The member a row reads alone, when it is of T (nullptr otherwise): what the writer copies.
template <class T> const MemberRead<T>* sole_member(const FieldSpec& f) {
  return f.reads.size() == 1 ? std::get_if<MemberRead<T>>(&f.reads.front()) : nullptr;
}

} // namespace exsim
