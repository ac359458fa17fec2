#include "input/param_rows.hpp"


#include <fmt/format.h>

namespace exsim::param_rows {

void add_scenario_rows(std::vector<ParamSpec>& t) {
  using S = Section;
  using T = ParamType;
  const json null;
  const auto none = std::nullopt;
  // Scenario (top level).
  t.push_back(every_kind(required(
      P(S::scenario, "schema_version", T::integer, "", null, 1, kSchemaVersion,
        "scenario format version: 2 (1 is still read; `exsim migrate` rewrites a version 1 file)"))));
  t.push_back(every_kind(choices(
      P(S::scenario, "kind", T::enumeration, "", "exchange", none, none,
        "what the scenario simulates: exchange (Impala's exchange senders and receivers, the keys of this "
        "section) or remote_scan (executors reading splits from S3 through a bounded prefetch, the "
        "remote_scan sections)"),
      {"exchange", "remote_scan"})));
  t.push_back(every_kind(
      derived(P(S::scenario, "name", T::string, "", null, none, none, "label copied to the results"),
              "the file name without .json")));
  t.push_back(every_kind(P(S::scenario, "description", T::string, "", "", none, none,
                           "one line saying what the scenario is for")));
  t.push_back(every_kind(P(S::scenario, "seed", T::integer, "", 1, 0, none,
                           "seed of every random stream (one per sender instance, or per executor of a "
                           "remote scan)")));
  t.push_back(every_kind(P(S::scenario, "provenance", T::object, "", json::object(), none, none,
                           "free-form record of where the numbers come from; not read by the simulator")));
  t.push_back(choices(
      P(S::scenario, "query_order", T::enumeration, "", "concurrent", none, none,
        "concurrent: every query starts at once, exchanges of the exchange-only form unless ordered by "
        "`after`; sequential: queries run one after another in file order (exchange-only ones grouped by "
        "their `query` key, first), each alone on the cluster, so each can be simulated in its own process "
        "(`exsim run --jobs N`; the results do not depend on N)"),
      {"concurrent", "sequential"}));
  t.push_back(only_until(P(S::scenario, "query_overhead_s", T::number, "s", 0, 0, 1e6,
                           "schema 1's fixed time of every query outside its exchanges (refused: that time is simulated)"),
                         1, "costs.query_startup_s"));
  t.push_back(only_until(
      P(S::scenario, "query_work_ns_per_row", T::number, "ns", 0, 0, 1e6,
        "schema 1's CPU per row of a query's work outside its exchanges (refused: that time is simulated)"),
      1, "the operator costs in `costs`"));
  t.push_back(only_until(P(S::scenario, "query_scanner_threads", T::integer, "threads", 0, 0, 1024,
                           "schema 1's scanner threads of the formula for the time outside the exchanges (refused)"),
                         1, "flags.num_scanner_threads"));
  t.push_back(only_until(P(S::scenario, "queries", T::object, "", json::object(), none, none,
                           "schema 1's per-query rows of the formula for the time outside the exchanges (refused)"),
                         1, "queries[] with fragments and operators"));
  t.push_back(only_since(P(S::scenario, "queries", T::array, "", json::array(), none, none,
                           "whole queries: fragments with their operators, and the exchanges between them"),
                         2));
  t.push_back(P(S::scenario, "cluster", T::object, "", json::object(), none, none,
                "the executors and their network"));
  t.push_back(P(S::scenario, "flags", T::object, "", json::object(), none, none,
                "Impala flags for every exchange (an exchange may override them)"));
  t.push_back(only_since(P(S::scenario, "costs", T::object, "", json::object(), none, none,
                           "CPU costs of the operator classes and the start-up of a query"),
                         2));
  t.push_back(P(S::scenario, "exchange_defaults", T::object, "", json::object(), none, none,
                "exchange keys (except id and faults) applied to every exchange, in queries too, that does "
                "not set them"));
  t.push_back(only_until(
      required(P(S::scenario, "exchanges", T::array, "", null, 1, none, "the exchanges to simulate")), 1, ""));
  t.push_back(only_since(P(S::scenario, "exchanges", T::array, "", json::array(), none, none,
                           "exchange-only form: exchanges simulated alone, each between a producer and a "
                           "consumer of given CPU costs"),
                         2));
}

} // namespace exsim::param_rows
