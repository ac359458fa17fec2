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
  QueryOrder query_order = QueryOrder::concurrent;
  std::string name;
  std::string description;
  uint64_t seed = 1;
  double query_overhead_s = 0;                    // added to every query's runtime (see the parameter table)
  double query_work_ns_per_row = 0;               // CPU per row outside the exchanges
  int query_scanner_threads = 0;                  // per executor at mt_dop 0; 0: one per core
  std::map<std::string, int64_t> query_work_rows; // per query, from "queries"
  std::map<std::string, int64_t> query_scan_rows; // per query, from "queries"
  // Time a query spends outside its exchanges: query_overhead_s, plus its scan rows' CPU spread over
  // executors x scan threads and its work rows' CPU over executors x max(1, mt_dop) threads.
  double query_extra_s(const std::string& query) const;
  ClusterSpec cluster;
  Flags flags;
  std::vector<ExchangeSpec> exchanges;
  nlohmann::json settings; // every effective parameter, for the results
  // Set for "kind": "remote_scan" (and then no exchanges); see input/remote_scan.hpp.
  std::shared_ptr<const RemoteScanScenario> remote_scan;
};

using Override = std::pair<std::string, std::string>; // NAME (flag or JSON path), VALUE

// Parses "NAME=VALUE"; throws InputError on a malformed argument.
Override parse_override(const std::string& arg);

// Reads, overrides, validates and resolves a scenario file.
Scenario load_scenario(const std::string& path, const std::vector<Override>& overrides = {});

// Same, from JSON already in memory; `file` only labels the messages.
Scenario build_scenario(nlohmann::json doc, const std::string& file,
                        const std::vector<Override>& overrides = {});

} // namespace exsim
