// Runs a scenario on SimGrid: one engine per process (SimGrid allows no more), the platform,
// every exchange's actors, and the results.
//   nlohmann::json results = exsim::simulate(exsim::load_scenario(path));
#pragma once

#include "sim/connection.hpp"
#include "sim/cpu.hpp"
#include "sim/exchange.hpp"
#include "sim/network.hpp"
#include "sim/platform.hpp"
#include "input/scenario.hpp"

#include <nlohmann/json.hpp>

#include <memory>
#include <vector>

namespace exsim {

class Simulation {
public:
  explicit Simulation(const Scenario& scenario);
  ~Simulation();

  // Prints simulated time and finished exchanges to stderr about once a wall second.
  void run(bool progress = false);

  const Scenario& scenario;
  Platform platform;
  std::vector<std::unique_ptr<ExchangeRun>> exchanges;

  // Aborts every running or pending exchange of `query` (only `origin` if it has no query).
  void abort_query(ExchangeRun& origin, ExchangeStatus why, const std::string& reason);
  bool query_aborted(const std::string& query) const;

  // The cores of host `host` (every piece of CPU work runs there).
  HostCpu& cpu(int host);

  // The data-stream connection from host `from` to host `to`, opened on first use.
  Connection& connection(int from, int to);

  int exchanges_finished = 0;

private:
  std::unique_ptr<sg4::Engine> engine_;
  std::unique_ptr<Network> network_;                     // how transfers share bandwidth
  std::vector<std::unique_ptr<HostCpu>> cpus_;           // [host]
  std::vector<std::unique_ptr<Connection>> connections_; // [from * hosts + to]
  std::map<std::string, std::pair<ExchangeStatus, std::string>> aborted_queries_;
};

// Simulates and returns the results document (see results.hpp). With query_order "sequential"
// each query is simulated alone in a child process, `jobs` at a time, and the results are
// merged with each query starting when the previous one ended: identical for any `jobs`.
nlohmann::json simulate(const Scenario& scenario, bool progress = false, int jobs = 1);

} // namespace exsim
