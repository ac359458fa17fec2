// Loading a scenario: the orchestration of its steps. The JSON with its limits (json_input), the
// --set overrides (overrides), the structure against the parameter table, the scenario-wide
// sections bound, the exchange-only form (exchange_only), the whole queries (query_form), the
// channel limit, and what the results' settings take from the file (output/settings.cpp writes them).
#include "input/scenario.hpp"

#include "input/check.hpp"
#include "input/exchange_keys.hpp"
#include "input/exchange_only.hpp"
#include "input/json_input.hpp"
#include "input/migrate.hpp"
#include "input/parameters.hpp"
#include "input/query_form.hpp"
#include "input/remote_scan.hpp"

#include <fmt/format.h>

#include <set>
#include <string>
#include <vector>

namespace exsim {

using nlohmann::json;

namespace {

// A scenario asking for more than kMaxChannels channels at once is refused (queries run one after
// another count one at a time). `exchange_only_groups`: the first queries, those of the
// exchange-only form.
void check_channel_count(const Scenario& sc, size_t exchange_only_groups, Errors& err) {
  int64_t total = 0;
  std::string where, what;
  int64_t largest = -1;
  for (size_t qi = 0; qi < sc.queries.size(); ++qi) {
    const QuerySpec& q = sc.queries[qi];
    int64_t in_query = 0;
    for (const ExchangeSpec& e : q.exchanges) {
      const int64_t channels = static_cast<int64_t>(e.senders()) * e.receivers();
      in_query += channels;
      if (channels > largest) {
        largest = channels;
        where = q.exchange_only ? fmt::format("exchanges[{}]", e.index)
                                : fmt::format("queries[{}]", qi - exchange_only_groups);
        what = fmt::format("exchange \"{}\": {} sender x {} receiver instances", e.id, e.senders(), e.receivers());
      }
    }
    if (sc.query_order == QueryOrder::sequential && in_query > kMaxChannels) {
      err.add(q.exchange_only ? "exchanges" : fmt::format("queries[{}]", qi - exchange_only_groups),
              fmt::format("{} channels in the query; at most {} can be simulated at once (each keeps about {:.2f} KB)",
                          in_query, kMaxChannels, kBytesPerChannel / 1000.0));
      return;
    }
    total += in_query;
  }
  if (sc.query_order == QueryOrder::concurrent && total > kMaxChannels)
    err.add(where, fmt::format("{} channels in the scenario, the most on {}; at most {} can be simulated at once "
                               "(each keeps about {:.2f} KB)",
                               total, what, kMaxChannels, kBytesPerChannel / 1000.0));
}

} // namespace

int64_t channels_of(const QuerySpec& q) {
  int64_t channels = 0;
  for (const ExchangeSpec& e : q.exchanges)
    channels += static_cast<int64_t>(e.senders()) * e.receivers();
  return channels;
}

int64_t channels_at_once(const Scenario& sc) {
  int64_t channels = 0;
  for (const QuerySpec& q : sc.queries) {
    const int64_t in_query = channels_of(q);
    channels = sc.query_order == QueryOrder::sequential ? std::max(channels, in_query) : channels + in_query;
  }
  return channels;
}

namespace {

// Applies every --set; all bad ones are reported at once, so that a sweep's names are fixed in one
// go. Returns (JSON path written, NAME=VALUE) of each, for messages about a value a --set wrote.
std::vector<std::pair<std::string, std::string>> apply_overrides(json& doc, const std::vector<Override>& overrides) {
  std::vector<std::pair<std::string, std::string>> overridden;
  std::string override_errors;
  for (const auto& o : overrides) {
    try {
      overridden.emplace_back(apply_override(doc, o), fmt::format("{}={}", o.first, o.second));
    } catch (const InputError& e) {
      override_errors += (override_errors.empty() ? "" : "\n") + std::string(e.what());
    }
  }
  if (!override_errors.empty()) throw InputError(override_errors);
  return overridden;
}

// The version decides which keys exist.
int read_version(const json& doc, Errors& err) {
  if (!doc.is_object()) {
    err.add("", fmt::format("expected an object, got {}", json_kind(doc)));
    err.throw_if_any();
  }
  const ParamSpec& p = *find_param(Section::scenario, "schema_version", kSchemaVersion);
  if (!doc.contains("schema_version"))
    err.add("schema_version", "required key is missing; expected " + describe_expectation(p));
  else
    check_value(p, doc["schema_version"], "schema_version", err);
  err.throw_if_any();
  return static_cast<int>(doc["schema_version"].get<double>());
}

// The two forms' lists, structure checked, the exchanges with exchange_defaults merged in.
struct Forms {
  json defaults;  // exchange_defaults
  json exchanges; // the exchange-only form
  json queries;   // whole queries (schema 2)
};

// Phase 1: structure, against the parameter table.
Forms check_structure(const json& doc, int version, Errors& err) {
  check_object(Section::scenario, doc, "", err, version);
  err.throw_if_any();
  if (doc.contains("cluster")) check_object(Section::cluster, doc["cluster"], "cluster", err, version);
  if (doc.contains("flags")) check_object(Section::flags, doc["flags"], "flags", err, version);
  if (doc.contains("costs")) check_object(Section::costs, doc["costs"], "costs", err, version);
  if (doc.contains("exchange_defaults")) {
    const json& d = doc["exchange_defaults"];
    check_object(Section::exchange, d, "exchange_defaults", err, version, {"id", "faults"}, false);
    if (d.is_object() && d.contains("flags"))
      check_object(Section::flags, d["flags"], "exchange_defaults.flags", err, version);
  }
  err.throw_if_any();
  Forms forms{doc.value("exchange_defaults", json::object()), doc.value("exchanges", json::array()),
              version >= 2 ? doc.value("queries", json::array()) : json::array()};
  for (size_t i = 0; i < forms.exchanges.size(); ++i) {
    json& x = forms.exchanges[i];
    const std::string xp = fmt::format("exchanges[{}]", i);
    if (!x.is_object()) {
      err.add(xp, fmt::format("expected an object, got {}", json_kind(x)));
      continue;
    }
    apply_exchange_defaults(x, forms.defaults, false, version);
    check_object(Section::exchange, x, xp, err, version);
    if (x.contains("flags")) check_object(Section::flags, x["flags"], xp + ".flags", err, version);
    if (x.contains("faults") && x["faults"].is_array())
      for (size_t f = 0; f < x["faults"].size(); ++f)
        check_object(Section::fault, x["faults"][f], fmt::format("{}.faults[{}]", xp, f), err, version);
  }
  for (size_t i = 0; i < forms.queries.size(); ++i) {
    const std::string qp = fmt::format("queries[{}]", i);
    check_object(Section::query, forms.queries[i], qp, err, version);
    if (forms.queries[i].is_object() && forms.queries[i].contains("parallel"))
      check_object(Section::plan, forms.queries[i]["parallel"], qp + ".parallel", err, version);
    if (forms.queries[i].is_object() && forms.queries[i].contains("flags"))
      check_object(Section::flags, forms.queries[i]["flags"], qp + ".flags", err, version);
    if (forms.queries[i].is_object() && forms.queries[i].contains("costs"))
      check_object(Section::costs, forms.queries[i]["costs"], qp + ".costs", err, version);
  }
  err.throw_if_any();
  if (forms.exchanges.empty() && forms.queries.empty())
    err.add(version >= 2 ? "queries" : "exchanges", "expected at least one query or exchange to simulate");
  err.throw_if_any();
  return forms;
}

// The top-level keys and the scenario-wide sections, bound into `sc`, with the keys each section
// gave for the results' settings (output/settings.cpp).
void bind_sections(const json& doc, int version, Scenario& sc, Errors& err) {
  sc.schema_version = version;
  sc.name = doc.contains("name") ? doc["name"].get<std::string>() : default_scenario_name(sc.file);
  sc.description = doc.value("description", std::string());
  sc.query_order = doc.value("query_order", std::string("concurrent")) == "sequential" ? QueryOrder::sequential
                                                                                       : QueryOrder::concurrent;
  sc.seed = read_seed(doc);
  json cluster = doc.value("cluster", json::object());
  if (version == 1) { // schema 1 knew cores only, 16 by default, every one a full thread
    if (!cluster.contains("threads_per_core")) cluster["threads_per_core"] = 1;
    if (!cluster.contains("cores_per_executor")) cluster["cores_per_executor"] = 16;
  }
  sc.settings_inputs.cluster = given_keys(Section::cluster, cluster, version);
  bind_fields(Section::cluster, cluster, sc.cluster);

  const json flags = doc.value("flags", json::object());
  sc.settings_inputs.flags = given_keys(Section::flags, flags, version);
  bind_fields(Section::flags, flags, sc.flags);
  check_window_flags(sc.flags, "flags", err);

  const json costs = doc.value("costs", json::object());
  sc.settings_inputs.costs = given_keys(Section::costs, costs, version);
  bind_fields(Section::costs, costs, sc.costs);
}

} // namespace

Scenario load_scenario(const std::string& path, const std::vector<Override>& overrides) {
  return build_scenario(json(read_scenario_json(path)), path, overrides);
}

Scenario build_scenario(json doc, const std::string& file, const std::vector<Override>& overrides) {
  const auto overridden = apply_overrides(doc, overrides);
  if (is_remote_scan(doc)) return load_remote_scan(std::move(doc), file);

  Errors err(file, overridden);
  const int version = read_version(doc, err);
  const Forms forms = check_structure(doc, version, err);

  // Defaults, then phase 2: meaning.
  Scenario sc;
  sc.file = file;
  bind_sections(doc, version, sc, err);
  ExchangeOnlyForm exchange_only = read_exchange_only(forms.exchanges, version, sc, err);
  // Schema 1's formula for the time outside the exchanges is gone: that time is simulated.
  if (version == 1)
    for (const std::string& key : outside_formula_keys(doc))
      err.add(key, outside_formula_removed(key));
  err.throw_if_any();
  read_queries(forms.queries, forms.defaults, version, static_cast<int>(forms.exchanges.size()),
               exchange_only.query_names, sc, err);
  err.throw_if_any();
  check_channel_count(sc, exchange_only.query_names.size(), err);
  err.throw_if_any();
  return sc;
}

size_t Scenario::exchange_count() const {
  size_t n = 0;
  for (const QuerySpec& q : queries)
    n += q.exchanges.size();
  return n;
}

const ExchangeSpec& Scenario::exchange(size_t index) const {
  for (const QuerySpec& q : queries)
    for (const ExchangeSpec& e : q.exchanges)
      if (static_cast<size_t>(e.index) == index) return e;
  throw std::out_of_range("Scenario::exchange: no exchange at that index");
}

} // namespace exsim
