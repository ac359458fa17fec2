// The one table of scenario parameters: every key a scenario may hold, with its unit, default,
// range and meaning, and for the bound ones the member of the typed scenario it sets. Validation,
// defaults, loading, `exsim params` and the JSON Schema all read it.
//   const exsim::ParamSpec* p = exsim::find_param(exsim::Section::flags, "batch_size");
//   exsim::Flags f;
//   exsim::bind_fields(exsim::Section::flags, {{"batch_size", 512}}, f); // the rest: the table's defaults
#pragma once

#include "models/remote_scan/split_prefetch.hpp"
#include "models/spec.hpp"

#include <nlohmann/json.hpp>

#include <cstddef>
#include <functional>
#include <optional>
#include <set>
#include <string>
#include <variant>
#include <vector>

namespace exsim {

enum class Section {
  scenario,
  cluster,
  flags,
  costs,
  query_rows, // schema 1: queries.<name>
  query,      // queries[]
  plan,       // queries[].parallel
  fragment,   // queries[].fragments[]
  sink,       // queries[].fragments[].sink
  op,         // operator nodes
  exchange,
  fault,
  remote_scan, // top level of a "kind": "remote_scan" scenario, besides the keys every kind has
  remote_scan_cluster,
  remote_scan_s3,
  remote_scan_splits,
  remote_scan_prefetch,
  remote_scan_scan
};

// The newest scenario format; files of older versions are read with their own keys.
constexpr int kSchemaVersion = 2;
// Instances of one side of an exchange at most (executors <= 1000, instances per executor <= 1024):
// the bound of an instance index, which is read as an int.
constexpr int kMaxInstances = 1000 * 1024;
enum class ParamType {
  integer,
  number,
  boolean,
  string,
  enumeration,
  object,
  number_array,
  string_array,
  array
};

const char* to_string(Section s);
const char* to_string(ParamType t);

// Where a row's value lands in the typed scenario: one member of a struct of models/spec.hpp (or of
// a remote scan's), read from the row's JSON value by the row's type (an enumeration by its index
// in the row's choices).
template <class T> struct FieldBinding {
  std::function<void(const nlohmann::json&, T&)> set;
  std::function<nlohmann::json(const T&)> get; // the member as the row's JSON value
  size_t offset = 0;                           // the member's place in T: no two rows bind one member
  // A row without a default (required, or derived by code from other values): the value the member
  // takes when the object lacks the key, which the code reads as "not given" (a required key is
  // never absent from a checked object).
  nlohmann::json absent;
};
// The structs rows bind today; a row of any other section binds nothing (its value is a
// reference, an object or array the parser walks, or not read by the simulator).
struct RemoteScanScenario; // input/remote_scan.hpp
using Binding = std::variant<std::monostate, FieldBinding<ClusterSpec>, FieldBinding<Flags>,
                             FieldBinding<OperatorCosts>, FieldBinding<BatchShape>, FieldBinding<CpuCosts>,
                             FieldBinding<QuerySpec>, FieldBinding<FaultSpec>, FieldBinding<FragmentSpec>,
                             FieldBinding<OpSpec>, FieldBinding<ExchangeSpec>, FieldBinding<StandaloneEnds>,
                             FieldBinding<RemoteScanScenario>, FieldBinding<PrefetchConfig>>;

struct ParamSpec {
  Section section;
  std::string name;
  ParamType type;
  std::string unit;
  nlohmann::json default_value; // null: required, or derived (see `derived`)
  bool required = false;
  std::optional<double> min;
  std::optional<double> max;
  bool min_exclusive = false;
  std::vector<std::string> choices; // enumeration values
  std::string derived;              // how the default is derived when default_value is null
  std::string description;
  int since = 1;                     // first schema_version that has the key
  int until = kSchemaVersion;        // last schema_version that has the key
  bool standalone_only = false;      // exchanges[] only, not the exchanges of a query
  std::string replaced_by;           // for a key a newer version removed: what to use instead
  bool every_kind = false; // a top-level key (Section::scenario) of every scenario kind
  bool daemon_wide = false; // a flag of the daemon, shared by its exchanges: top-level flags only
  // The results' settings list it only where a file sets it, so that results of scenarios written
  // before it existed keep their bytes; the default still applies.
  bool listed_when_set = false;
  Binding binds; // the member it sets (std::monostate: read by hand where it is used)
};

const std::vector<ParamSpec>& parameter_table();
// The key `name` of `section` in schema `version`; nullptr when that version has no such key.
const ParamSpec* find_param(Section section, const std::string& name, int version = kSchemaVersion);
// Every key of `section` in schema `version`.
std::vector<const ParamSpec*> params_of(Section section, int version = kSchemaVersion);
// A key of an older version that `version` removed, or nullptr.
const ParamSpec* removed_param(Section section, const std::string& name, int version);

// "expected an integer >= 1" and the like, for error messages and --help.
std::string describe_expectation(const ParamSpec& p);

// The top-level keys every scenario kind has (schema_version, kind, name, ...).
std::vector<const ParamSpec*> every_kind_params();

// Sets every member of `out` that a row of `section` binds (in any schema version): the value
// `obj` holds under the row's name, else the row's default, else (a row without one) the
// binding's `absent` value. `obj` has been checked against the table (or holds only the values
// that passed: bindable_values in input/check.hpp). Defined for each struct of `Binding`.
template <class T> void bind_fields(Section section, const nlohmann::json& obj, T& out);
// Sets only the members whose keys `obj` holds, over what `out` holds already (an exchange's own
// flags over the scenario's).
template <class T> void bind_given(Section section, const nlohmann::json& obj, T& out);

// What an object of a file says that the struct its rows bind cannot: the keys it gives (a
// listed_when_set row, or one without a default, is echoed only where given) and the number rows
// it writes as a float with an integral value (a double member holds the same for `390.0` and
// `390`, and the results echo each as the file wrote it).
struct GivenKeys {
  std::set<std::string> names;
  std::set<std::string> integral_floats;
  void add(const GivenKeys& other);
};
GivenKeys given_keys(Section section, const nlohmann::json& obj, int version = kSchemaVersion);

// The reverse of bind_fields, for the results' settings: each row of `section` in schema `version`
// that binds a member of T, with the member's value as the row's JSON value (a number row's
// integral value as an integer, unless given as a float), where the file's object with the rows'
// defaults filled in would hold the key (see with_defaults in input/check.hpp). Defined for each
// struct of `Binding`.
template <class T>
nlohmann::json echo_fields(Section section, const T& in, int version, const GivenKeys& given);

// A spec the parser builds itself (the exchange-only form's fragments and operators) starts from
// its rows' defaults, as one read from an empty object.
template <class T> T from_defaults(Section s) {
  T t{};
  bind_fields(s, nlohmann::json::object(), t);
  return t;
}

// A section's name in parameters_json() (input/parameter_docs.hpp): "cluster", "flags", "exchange", "remote_scan.s3", ...
const char* section_key(Section s);

} // namespace exsim
