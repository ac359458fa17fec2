// Scenario files: loading, `--set` overrides, validation (structure against the parameter
// table, then meaning), and the typed, defaults-filled form the simulation runs.
//   exsim::Scenario s = exsim::load_scenario("scenarios/examples/hash_5x5.json",
//                                            {{"rpcs_in_flight_per_channel", "2"}});
// Bad input throws InputError whose message names the file, the JSON path and what was expected.
#pragma once

#include "input/input_error.hpp"
#include "input/overrides.hpp"
#include "input/parameters.hpp"
#include "models/spec.hpp"

#include <nlohmann/json.hpp>

#include <map>
#include <memory>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace exsim {

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
  // What the results' settings (output/settings.cpp, which writes them from the members above by
  // the parameter table's rows) take from the file itself, which no member holds: the keys each
  // object gave, and the rows no member binds.
  struct SettingsInputs {
    GivenKeys cluster, flags, costs;
    // An exchange of the exchange-only form, the one of its index.
    struct Exchange {
      GivenKeys given;              // its keys
      GivenKeys flags;              // those its flags came from: the scenario's, then its own
      std::vector<GivenKeys> faults; // each fault's
      StandaloneEnds ends;          // its producer and consumer (their fragments hold them after)
      nlohmann::json unbound = nlohmann::json::object(); // its rows no member binds, as written
    };
    std::vector<Exchange> exchanges;
    // A whole query, in order: the plan it runs, the keys of its own flags and costs.
    struct Query {
      bool parallel = false;
      GivenKeys flags, costs;
    };
    std::vector<Query> queries;
  } settings_inputs;
  nlohmann::json settings; // the remote scan's settings for its results (input/remote_scan.cpp)

  size_t exchange_count() const;
  // The exchange at position `index` among the scenario's exchanges (ExchangeSpec::index).
  const ExchangeSpec& exchange(size_t index) const;
  // Set for "kind": "remote_scan" (and then no exchanges); see input/remote_scan.hpp.
  std::shared_ptr<const RemoteScanScenario> remote_scan;
};

// What a simulation keeps per channel, measured: q64 at mt_dop 8 peaks at 1.86 GB of resident
// memory for its 3.9 M channels on 40 executors and at 11.6 GB for 25.6 M on 100, 0.45-0.48 KB
// each (the sender's channel, the RPC in flight on it, the receiver's side; docs/speed.md). Runs
// that could not fit are refused up front (a failed allocation deep inside a simulation cannot
// even report itself): a scenario over kMaxChannels anywhere, and on this machine one whose
// channels need more than its memory; a workload's query processes start while they fit together.
constexpr int64_t kBytesPerChannel = 480;
constexpr int64_t kMaxChannels = 30'000'000; // 14.4 GB at kBytesPerChannel
// A query's channels (every exchange's sender x receiver instances).
int64_t channels_of(const QuerySpec& q);
// The most channels simulated at once in one process: the largest query's when queries run one
// after another, else all of them.
int64_t channels_at_once(const Scenario& sc);

// Reads, overrides, validates and resolves a scenario file.
Scenario load_scenario(const std::string& path, const std::vector<Override>& overrides = {});

// Same, from JSON already in memory; `file` only labels the messages.
Scenario build_scenario(nlohmann::json doc, const std::string& file,
                        const std::vector<Override>& overrides = {});

} // namespace exsim
