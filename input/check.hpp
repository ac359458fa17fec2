// Checking scenario JSON against the parameter table, shared by every scenario kind: the error
// collector (file and JSON path in every message, and the --set that wrote a value), value and
// object checks for a schema version, defaults.
//   exsim::Errors err(file);
//   exsim::check_object(exsim::Section::cluster, doc["cluster"], "cluster", err);
//   err.throw_if_any();   // InputError listing every error of the phase
#pragma once

#include "input/parameters.hpp"
#include "input/scenario.hpp"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <set>
#include <string>
#include <utility>
#include <vector>

namespace exsim {

// Collects every error of one phase so that a user sees them all at once.
class Errors {
public:
  explicit Errors(std::string file, std::vector<std::pair<std::string, std::string>> overridden = {})
      : file_(std::move(file)), overridden_(std::move(overridden)) {}
  void add(const std::string& path, const std::string& what) {
    lines_.push_back(
        fmt::format("{}: {}: {}{}", file_, path.empty() ? "(top level)" : path, what, set_by(path)));
  }
  bool any() const { return !lines_.empty(); }
  void throw_if_any() const {
    if (lines_.empty()) return;
    std::string msg;
    for (const auto& l : lines_)
      msg += (msg.empty() ? "" : "\n") + l;
    throw InputError(msg);
  }
  const std::string& file() const { return file_; }

private:
  // " (value from the command line: --set NAME=VALUE)" when an override wrote this path or a parent.
  std::string set_by(const std::string& path) const {
    for (auto it = overridden_.rbegin(); it != overridden_.rend(); ++it) {
      const std::string& p = it->first;
      if (path == p || (path.size() > p.size() && path.compare(0, p.size(), p) == 0 &&
                        (path[p.size()] == '.' || path[p.size()] == '[')))
        return fmt::format(" (value from the command line: --set {})", it->second);
    }
    return "";
  }

  std::string file_;
  std::vector<std::pair<std::string, std::string>> overridden_; // resolved JSON path, --set argument
  std::vector<std::string> lines_;
};

std::string join_path(const std::string& base, const std::string& key);
// A value shortened for a message.
std::string show(const nlohmann::json& v);
// "an integer", "a string", ... for a message.
const char* json_kind(const nlohmann::json& v);
bool is_integral(const nlohmann::json& v);
bool in_range(const ParamSpec& p, double d);
// Checks one value against its table entry; the error names `path` and what was expected.
void check_value(const ParamSpec& p, const nlohmann::json& v, const std::string& path, Errors& err);
// The keys of a section in schema `version` (`in_query`: those a query's exchange may have).
std::vector<std::string> key_names(Section s, int version = kSchemaVersion, const std::set<std::string>& excluded = {},
                                   bool in_query = false);
// The same, for "unknown key; expected one of: ...".
std::string known_keys(Section s, int version = kSchemaVersion, const std::set<std::string>& excluded = {},
                       bool in_query = false);
// Checks an object's keys and values against a section of the table in schema `version`. Nested
// objects and arrays are checked by the caller. `in_query`: the object is an exchange of a query,
// which has no placement, rows or producer of its own.
void check_object(Section s, const nlohmann::json& obj, const std::string& path, Errors& err,
                  int version = kSchemaVersion, const std::set<std::string>& excluded = {},
                  bool enforce_required = true, bool in_query = false);
// Fills the table's defaults into an object (keys with a null default, or listed only when set,
// are left absent).
nlohmann::json with_defaults(Section s, nlohmann::json obj, int version = kSchemaVersion, bool in_query = false);
// The keys of `obj` whose values pass their row's check (check_value), for binding an object whose
// errors are still being collected (an operator, read while the operators below it are checked):
// check_object reports the others, and meanwhile their rows' defaults stand in for them.
nlohmann::json bindable_values(Section s, const nlohmann::json& obj, int version = kSchemaVersion);
// Integral JSON numbers written as floats (2e6) are stored as integers from here on.
void normalise_integers(Section s, nlohmann::json& obj, int version = kSchemaVersion);
// A checked scenario's seed (1 when it has none): an integer read as 64-bit unsigned, never
// through a double that would merge seeds above 2^53.
uint64_t read_seed(const nlohmann::json& doc);
// A scenario's name when it gives none: its file name without the directory and ".json".
std::string default_scenario_name(const std::string& file);

} // namespace exsim
