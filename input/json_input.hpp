// Reading JSON inputs with limits: scenario files, --set values and results files are parsed with
// no nesting deeper than kMaxJsonDepth and no duplicate key in an object, and files are read only
// when they are regular files of at most 1 GiB. Messages name the file and the JSON path.
//   nlohmann::ordered_json doc = exsim::read_scenario_json("scenarios/default.json");
#pragma once

#include "input/input_error.hpp"

#include <nlohmann/json.hpp>

#include <string>

namespace exsim {

// Every JSON input (scenario files, --set values, results files) is parsed with these limits: no
// nesting deeper than kMaxJsonDepth (the checks and copies recurse), no duplicate key in an object
// (JSON allows it, and all but the last would be dropped without a word).
constexpr int kMaxJsonDepth = 256;
// `label` starts every message ("FILE" or "--set NAME=VALUE"); a syntax error gives its line and
// column. Throws InputError.
nlohmann::ordered_json parse_input_json(const std::string& text, const std::string& label);
nlohmann::json parse_input_json_unordered(const std::string& text, const std::string& label);

// A whole input file, or an InputError "PATH: cannot read the WHAT: reason". Only regular files
// (a device such as /dev/zero, or a FIFO, would be read for ever) of at most 1 GiB.
std::string read_input_file(const std::string& path, const std::string& what);

// A scenario file's JSON, keys in the file's order; InputError naming the file and the reason (the
// operating system's, or where the JSON is broken).
nlohmann::ordered_json read_scenario_json(const std::string& path);

// Text that is not JSON at all (for --set: a bare word, then read as a string).
class JsonSyntaxError : public InputError {
public:
  using InputError::InputError;
};

} // namespace exsim
