#include "output/settings.hpp"

#include "input/parameters.hpp"
#include "input/scenario.hpp"

#include <stdexcept>

namespace exsim {

using nlohmann::json;

namespace {

// The top-level rows the settings echo are read by hand into Scenario (they bind nothing, so that
// `exsim params` and its committed copy keep their bytes): written here under their rows' names,
// which must be rows of the scenario's version.
json top_level(const Scenario& sc) {
  const json values = {
      {"schema_version", sc.schema_version},
      {"seed", sc.seed},
      {"query_order", sc.query_order == QueryOrder::sequential ? "sequential" : "concurrent"}};
  for (const auto& [key, value] : values.items())
    if (find_param(Section::scenario, key, sc.schema_version) == nullptr)
      throw std::logic_error("settings_echo: not a scenario row: " + key);
  return values;
}

// A scenario-wide section is echoed where the scenario's version has it (costs: schema 2).
bool has_section(const char* key, int version) {
  return find_param(Section::scenario, key, version) != nullptr;
}

// An exchange of the exchange-only form as it runs: its keys as bound (with the defaults of the
// keys it does not give) and as written where no member binds them, its flags and faults, and what
// the parser resolved (the placement's zeros, the weights, the fanout, K).
json exchange_echo(const ExchangeSpec& e, const Scenario::SettingsInputs::Exchange& in, int v) {
  json out = in.unbound;
  out.update(echo_fields(Section::exchange, e, v, in.given));
  out.update(echo_fields(Section::exchange, e.shape, v, in.given));
  out.update(echo_fields(Section::exchange, e.costs, v, in.given));
  out.update(echo_fields(Section::exchange, in.ends, v, in.given));
  out["flags"] = echo_fields(Section::flags, e.flags, v, in.flags);
  json faults = json::array();
  for (size_t i = 0; i < e.faults.size(); ++i)
    faults.push_back(echo_fields(Section::fault, e.faults[i], v, in.faults.at(i)));
  out["faults"] = std::move(faults);
  out["rpcs_in_flight_per_channel_effective"] = e.sender.k;
  out["receiver_weights"] = e.receiver_weights;
  return out;
}

json exchanges_echo(const Scenario& sc) {
  const auto& inputs = sc.settings_inputs.exchanges;
  std::vector<const ExchangeSpec*> by_index(inputs.size(), nullptr);
  for (const QuerySpec& q : sc.queries)
    if (q.exchange_only)
      for (const ExchangeSpec& e : q.exchanges)
        by_index.at(static_cast<size_t>(e.index)) = &e;
  json out = json::array();
  for (size_t i = 0; i < inputs.size(); ++i)
    out.push_back(exchange_echo(*by_index[i], inputs[i], sc.schema_version));
  return out;
}

// The rows of `echo` that `given` names: a query's own values, where the rest are the scenario's.
json only_given(const json& echo, const GivenKeys& given) {
  json out = json::object();
  for (const auto& [key, value] : echo.items())
    if (given.names.count(key) > 0) out[key] = value;
  return out;
}

// A whole query as it runs: the plan it selected, its fragments' placement, its exchanges' ends
// and K, its own flags and costs.
json query_echo(const QuerySpec& q, const Scenario::SettingsInputs::Query& in, int v) {
  json fragments = json::array();
  for (const FragmentSpec& f : q.fragments)
    fragments.push_back({{"id", f.id},
                         {"executors", f.executors},
                         {"first_executor", f.first_executor},
                         {"instances_per_executor", f.instances_per_executor}});
  json exchanges = json::array();
  for (const ExchangeSpec& e : q.exchanges)
    exchanges.push_back({{"id", e.id},
                         {"partitioning", to_string(e.partitioning)},
                         {"merging", e.merging},
                         {"senders", e.senders()},
                         {"receivers", e.receivers()},
                         {"k", e.sender.k}});
  json out = {{"plan", in.parallel ? "parallel" : "fragments"},
              {"fragments", std::move(fragments)},
              {"exchanges", std::move(exchanges)},
              {"name", q.name}};
  if (q.flags) out["flags"] = only_given(echo_fields(Section::flags, *q.flags, v, in.flags), in.flags);
  if (q.costs) out["costs"] = only_given(echo_fields(Section::costs, *q.costs, v, in.costs), in.costs);
  return out;
}

json queries_echo(const Scenario& sc) {
  json out = json::array();
  size_t i = 0;
  for (const QuerySpec& q : sc.queries)
    if (!q.exchange_only) out.push_back(query_echo(q, sc.settings_inputs.queries.at(i++), sc.schema_version));
  return out;
}

} // namespace

json settings_echo(const Scenario& sc) {
  const int v = sc.schema_version;
  const Scenario::SettingsInputs& in = sc.settings_inputs;
  json out = top_level(sc);
  if (has_section("cluster", v)) out["cluster"] = echo_fields(Section::cluster, sc.cluster, v, in.cluster);
  if (has_section("flags", v)) out["flags"] = echo_fields(Section::flags, sc.flags, v, in.flags);
  if (has_section("costs", v)) out["costs"] = echo_fields(Section::costs, sc.costs, v, in.costs);
  out["exchanges"] = exchanges_echo(sc);
  if (v >= 2) out["queries"] = queries_echo(sc); // schema 1's `queries` were the formula's rows, not queries
  return out;
}

} // namespace exsim
