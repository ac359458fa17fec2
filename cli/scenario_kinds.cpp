// The scenario kinds' rows (see scenario_kinds.hpp).
#include "cli/scenario_kinds.hpp"

#include "models/network/network_model.hpp"
#include "output/remote_scan_results.hpp"
#include "output/remote_scan_summary.hpp"
#include "output/results.hpp"
#include "sim/remote_scan.hpp"
#include "sim/simulation.hpp"

#include <fmt/format.h>

#include <stdexcept>

namespace exsim {

namespace {

// Exchanges and whole queries: the queries' fragments on the executors' cores.
nlohmann::json run_workload(const Scenario& sc, const RunOptions& o, uint64_t& events) {
  const WorkloadRun run = o.parts.empty() ? simulate(sc, o.progress, o.jobs) : merge_parts(sc, o.parts);
  events = run.events;
  return results_document(sc, run);
}

std::string workload_validated(const Scenario& sc) {
  size_t whole = 0;
  for (const QuerySpec& q : sc.queries)
    whole += q.exchange_only ? 0 : 1;
  return fmt::format("{} exchange(s), {} whole quer{}", sc.exchange_count(), whole, whole == 1 ? "y" : "ies");
}

double rpcs_of(const nlohmann::json& summary) {
  return static_cast<double>(summary.at("rpcs").get<int64_t>() + summary.at("eos_rpcs").get<int64_t>());
}

// Executors reading splits from S3 through Velox's executor-global prefetch.
nlohmann::json run_remote_scan_kind(const Scenario& sc, const RunOptions&, uint64_t& events) {
  events = 0;
  return remote_scan_results(sc, run_remote_scan(sc));
}

double gets_of(const nlohmann::json& summary) {
  return static_cast<double>(summary.at("footer_gets").get<int64_t>() + summary.at("data_gets").get<int64_t>());
}

} // namespace

const std::vector<ScenarioKind>& scenario_kinds() {
  static const std::vector<ScenarioKind> kinds = {
      {"exchange", "exchanges", "rpcs", [](const Scenario& sc) { return !sc.remote_scan; }, &run_workload,
       [](const Scenario& sc) { return network_model_note(sc.cluster.network_model, sc.cluster.executors); },
       [](const nlohmann::json& r, const SummaryOptions& o) { print_summary(r, o); }, &workload_validated,
       &rpcs_of},
      {"remote_scan", "executors", "gets", [](const Scenario& sc) { return sc.remote_scan != nullptr; },
       &run_remote_scan_kind, [](const Scenario&) { return std::string(); },
       [](const nlohmann::json& r, const SummaryOptions&) { print_remote_scan_summary(r); },
       [](const Scenario&) { return std::string("remote_scan"); }, &gets_of},
  };
  return kinds;
}

const ScenarioKind& kind_of(const Scenario& sc) {
  for (const ScenarioKind& k : scenario_kinds())
    if (k.is(sc)) return k;
  throw std::logic_error("kind_of: a scenario of no registered kind");
}

const ScenarioKind* results_kind(const nlohmann::json& results) {
  const std::string name = results.is_object() ? results.value("kind", "exchange") : "exchange";
  for (const ScenarioKind& k : scenario_kinds())
    if (name == k.name) return &k;
  return nullptr;
}

} // namespace exsim
