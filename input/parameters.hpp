// The one table of scenario parameters: every key a scenario may hold, with its unit, default,
// range and meaning. Validation, defaults, `exsim params` and the JSON Schema all read it.
//   const exsim::ParamSpec* p = exsim::find_param(exsim::Section::flags, "batch_size");
#pragma once

#include <nlohmann/json.hpp>

#include <optional>
#include <string>
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

// JSON Schema (draft 2020-12) of scenario files of the current version, generated from the table: "kind" selects the
// exchange form (the default) or the remote_scan form.
nlohmann::json scenario_schema();

// Human-readable table of every parameter, for `exsim params` and --help.
std::string parameters_help();

// The same table for other programs (`exsim params --format json`): {"schema_version": N,
// "parameters": [{"section", "section_title", "name", "type", "unit", "required", "default",
// "derived", "check", "description", "standalone_only", "since", and "min", "max",
// "min_exclusive", "choices" where set}]}, in the order of `exsim params`.
nlohmann::json parameters_json();

// A section's name in parameters_json(): "cluster", "flags", "exchange", "remote_scan.s3", ...
const char* section_key(Section s);

} // namespace exsim
