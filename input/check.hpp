// Checking scenario JSON against the parameter table, shared by every scenario kind: the error
// collector (file and JSON path in every message), value and object checks, defaults.
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
#include <vector>

namespace exsim {

// Collects every error of one phase so that a user sees them all at once.
class Errors {
public:
  explicit Errors(std::string file) : file_(std::move(file)) {}
  void add(const std::string& path, const std::string& what) {
    lines_.push_back(fmt::format("{}: {}: {}", file_, path.empty() ? "(top level)" : path, what));
  }
  void throw_if_any() const {
    if (lines_.empty()) return;
    std::string msg;
    for (const auto& l : lines_)
      msg += (msg.empty() ? "" : "\n") + l;
    throw InputError(msg);
  }
  const std::string& file() const { return file_; }

private:
  std::string file_;
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
// The keys of a section, for "unknown key; expected one of: ...".
std::string known_keys(Section s, const std::set<std::string>& excluded = {});
// Checks an object's keys and values against a section of the table. Nested objects and arrays
// are checked by the caller.
void check_object(Section s, const nlohmann::json& obj, const std::string& path, Errors& err,
                  const std::set<std::string>& excluded = {}, bool enforce_required = true);
// Fills the table's defaults into an object (keys with a null default are left absent).
nlohmann::json with_defaults(Section s, nlohmann::json obj);
// A scenario's name when it gives none: its file name without the directory and ".json".
std::string default_scenario_name(const std::string& file);
// Integral JSON numbers written as floats (2e6) are stored as integers from here on.
void normalise_integers(Section s, nlohmann::json& obj);

} // namespace exsim
