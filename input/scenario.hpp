// Scenario files: loading, `--set` overrides, validation (structure against the parameter
// table, then meaning), and the typed, defaults-filled form the simulation runs.
//   exsim::Scenario s = exsim::load_scenario("scenarios/examples/hash_5x5.json",
//                                            {{"rpcs_in_flight_per_channel", "2"}});
// Bad input throws InputError whose message names the file, the JSON path and what was expected.
#pragma once

#include "models/spec.hpp"

#include <nlohmann/json.hpp>

#include <map>
#include <memory>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace exsim {

class InputError : public std::runtime_error {
public:
  using std::runtime_error::runtime_error;
};

enum class QueryOrder { concurrent, sequential };

struct RemoteScanScenario; // input/remote_scan.hpp

struct Scenario {
  std::string file;
  int schema_version = 0;
  QueryOrder query_order = QueryOrder::concurrent;
  std::string name;
  std::string description;
  uint64_t seed = 1;
  ClusterSpec cluster{};
  Flags flags{};
  OperatorCosts costs{};
  // Exchange-only queries first (grouped by their `query` key, "" for none), then whole queries.
  std::vector<QuerySpec> queries;
  nlohmann::json settings; // every effective parameter, for the results

  size_t exchange_count() const;
  // The exchange at position `index` among the scenario's exchanges (ExchangeSpec::index).
  const ExchangeSpec& exchange(size_t index) const;
  // Set for "kind": "remote_scan" (and then no exchanges); see input/remote_scan.hpp.
  std::shared_ptr<const RemoteScanScenario> remote_scan;
};

using Override = std::pair<std::string, std::string>; // NAME (flag or JSON path), VALUE

// Parses "NAME=VALUE"; throws InputError on a malformed argument.
Override parse_override(const std::string& arg);

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

// Reads, overrides, validates and resolves a scenario file.
Scenario load_scenario(const std::string& path, const std::vector<Override>& overrides = {});

// Same, from JSON already in memory; `file` only labels the messages.
Scenario build_scenario(nlohmann::json doc, const std::string& file,
                        const std::vector<Override>& overrides = {});

} // namespace exsim
