#include "input/exchange_only.hpp"

#include "input/exchange_keys.hpp"
#include "input/parameters.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <functional>
#include <map>
#include <tuple>
#include <variant>
#include <vector>

namespace exsim {

using nlohmann::json;

namespace {

bool has_cycle(const std::vector<std::vector<int>>& after, int& at) {
  std::vector<int> state(after.size(), 0); // 0 new, 1 on stack, 2 done
  std::function<bool(int)> visit = [&](int i) {
    if (state[static_cast<size_t>(i)] == 1) return true;
    if (state[static_cast<size_t>(i)] == 2) return false;
    state[static_cast<size_t>(i)] = 1;
    for (int j : after[static_cast<size_t>(i)])
      if (visit(j)) return true;
    state[static_cast<size_t>(i)] = 2;
    return false;
  };
  for (size_t i = 0; i < after.size(); ++i)
    if (state[i] == 0 && visit(static_cast<int>(i))) {
      at = static_cast<int>(i);
      return true;
    }
  return false;
}

struct Standalone {
  ExchangeSpec spec;
  StandaloneEnds ends;
  std::vector<std::string> after;
};

// Each exchange becomes a pair of fragments in its query: a producer of `rows_total` rows that
// sends on the exchange, and a consumer that reads it.
void add_standalone(QuerySpec& q, Standalone& s, const std::vector<int>& after_local) {
  const int local = static_cast<int>(q.exchanges.size());
  ExchangeSpec e = s.spec;
  e.sender_fragment = static_cast<int>(q.fragments.size());
  e.receiver_fragment = e.sender_fragment + 1;
  FragmentSpec send = from_defaults<FragmentSpec>(Section::fragment);
  send.id = e.id + ".senders";
  send.executors = e.sender_executors;
  send.first_executor = e.sender_first_executor;
  send.instances_per_executor = e.sender_instances_per_executor;
  OpSpec gen = from_defaults<OpSpec>(Section::op);
  gen.kind = OpKind::generate;
  gen.id = e.id + ".producer";
  gen.rows_exact = e.rows_total;
  gen.rows = static_cast<double>(e.rows_total);
  gen.ns_per_row = s.ends.producer_ns_per_row;
  send.ops.push_back(gen);
  send.sink = SinkKind::exchange;
  send.sink_exchange = local;
  send.start_s = s.ends.start_s;
  send.after_exchanges = after_local;
  FragmentSpec recv = from_defaults<FragmentSpec>(Section::fragment);
  recv.id = e.id + ".receivers";
  recv.executors = e.receiver_executors;
  recv.first_executor = e.receiver_first_executor;
  recv.instances_per_executor = e.receiver_instances_per_executor;
  OpSpec leaf = from_defaults<OpSpec>(Section::op);
  leaf.kind = OpKind::exchange;
  leaf.id = e.id + ".exchange";
  leaf.exchange = local;
  OpSpec consume = from_defaults<OpSpec>(Section::op);
  consume.kind = OpKind::consume;
  consume.id = e.id + ".consumer";
  consume.inputs = {0};
  consume.ns_per_row = s.ends.consumer_ns_per_row;
  consume.instance_factors = s.ends.receiver_consumer_slowdown;
  recv.ops = {leaf, consume};
  recv.root = 1;
  recv.sink = SinkKind::result;
  recv.start_s = s.ends.start_s;
  recv.after_exchanges = after_local;
  q.fragments.push_back(std::move(send));
  q.fragments.push_back(std::move(recv));
  q.exchanges.push_back(std::move(e));
}

// Each exchange's id, unique: id -> its index.
std::map<std::string, int> index_ids(const json& exchanges, Errors& err) {
  std::map<std::string, int> index_of;
  for (size_t i = 0; i < exchanges.size(); ++i) {
    const std::string id = exchanges[i].at("id").get<std::string>();
    const std::string xp = fmt::format("exchanges[{}].id", i);
    if (id.empty())
      err.add(xp, "expected a non-empty string");
    else if (!index_of.emplace(id, static_cast<int>(i)).second)
      err.add(xp, fmt::format("duplicate id \"{}\" (first used by exchanges[{}])", id, index_of[id]));
  }
  err.throw_if_any();
  return index_of;
}

// The placement's zeros: every executor, max(1, mt_dop) instances on each; and its bounds.
void place(const std::string& xp, const ClusterSpec& cluster, ExchangeSpec& e, Errors& err) {
  const int per_exec_default = std::max(1, e.flags.mt_dop);
  for (auto [key, val] : {std::pair<const char*, int*>{"sender_executors", &e.sender_executors},
                          std::pair<const char*, int*>{"receiver_executors", &e.receiver_executors}}) {
    if (*val > cluster.executors)
      err.add(xp + "." + key, fmt::format("expected at most cluster.executors = {}, got {}", cluster.executors, *val));
    if (*val == 0) *val = cluster.executors;
  }
  for (auto [key, first, count] :
       {std::tuple<const char*, int, int>{"sender_first_executor", e.sender_first_executor, e.sender_executors},
        std::tuple<const char*, int, int>{"receiver_first_executor", e.receiver_first_executor,
                                          e.receiver_executors}})
    if (first + count > cluster.executors)
      err.add(xp + "." + key,
              fmt::format("expected at most {} (cluster.executors {} minus the {} executor(s) used), got {}",
                          std::max(0, cluster.executors - count), cluster.executors, count, first));
  if (e.sender_instances_per_executor == 0) e.sender_instances_per_executor = per_exec_default;
  if (e.receiver_instances_per_executor == 0) e.receiver_instances_per_executor = per_exec_default;
}

// Ids of exchanges this one waits for: each another exchange of its query.
void check_after(const json& exchanges, const std::map<std::string, int>& index_of, size_t i, const std::string& xp,
                 const Standalone& s, Errors& err) {
  for (size_t a = 0; a < s.after.size(); ++a) {
    auto it = index_of.find(s.after[a]);
    if (it == index_of.end())
      err.add(fmt::format("{}.after[{}]", xp, a), fmt::format("no exchange has id \"{}\"", s.after[a]));
    else if (it->second == static_cast<int>(i))
      err.add(fmt::format("{}.after[{}]", xp, a), "an exchange cannot wait for itself");
    else if (exchanges[static_cast<size_t>(it->second)].value("query", std::string()) != s.spec.query)
      err.add(fmt::format("{}.after[{}]", xp, a),
              fmt::format("\"{}\" belongs to another query; `after` orders exchanges of one query (queries run "
                          "together, or one after another with query_order \"sequential\")",
                          s.after[a]));
  }
}

// The exchange's faults. Which indices a kind takes, and their bounds, depend on the kind and the
// exchange.
void read_faults(const json& faults, const std::string& xp, ExchangeSpec& e, Errors& err) {
  const int receivers = e.receivers();
  for (size_t f = 0; f < faults.size(); ++f) {
    const json& fj = faults[f];
    const std::string fp = fmt::format("{}.faults[{}]", xp, f);
    FaultSpec fs;
    bind_fields(Section::fault, fj, fs);
    const std::string kind = fj.at("kind").get<std::string>();
    const bool wants_sender = fs.kind == FaultKind::rpc_error;
    const bool wants_receiver = fs.kind != FaultKind::cancel;
    if (fj.contains("sender")) {
      if (!wants_sender) err.add(fp + ".sender", fmt::format("not used by a {} fault; remove it", kind));
      if (fs.sender >= e.senders())
        err.add(fp + ".sender", fmt::format("expected a sender index below {}, got {}", e.senders(), fs.sender));
    } else if (wants_sender) {
      err.add(fp + ".sender", fmt::format("required for a {} fault; expected an integer >= 0", kind));
    }
    if (fj.contains("receiver")) {
      if (!wants_receiver) err.add(fp + ".receiver", fmt::format("not used by a {} fault; remove it", kind));
      if (fs.receiver >= receivers)
        err.add(fp + ".receiver", fmt::format("expected a receiver index below {}, got {}", receivers, fs.receiver));
    } else if (wants_receiver) {
      err.add(fp + ".receiver", fmt::format("required for a {} fault; expected an integer >= 0", kind));
    }
    e.faults.push_back(fs);
  }
}

// The rows of an exchange that bind no member, as `x` (defaults filled in) holds them, for the
// results' settings; its flags and faults are echoed from their own sections' rows.
json unbound_rows(const json& x, int version) {
  json out = json::object();
  for (const ParamSpec* p : params_of(Section::exchange, version))
    if (std::holds_alternative<std::monostate>(p->binds) && p->name != "flags" && p->name != "faults" &&
        x.contains(p->name))
      out[p->name] = x.at(p->name);
  return out;
}

// Groups the exchanges by query, in order of first appearance, each query after those in sc.
std::set<std::string> group_by_query(const json& exchanges, const std::map<std::string, int>& index_of,
                                     std::vector<Standalone>& standalone, Scenario& sc) {
  std::map<std::string, size_t> group_of;
  for (size_t i = 0; i < exchanges.size(); ++i) {
    const std::string& q = standalone[i].spec.query;
    auto it = group_of.find(q);
    if (it == group_of.end()) {
      it = group_of.emplace(q, sc.queries.size()).first;
      QuerySpec qs;
      qs.name = q;
      qs.exchange_only = true;
      sc.queries.push_back(std::move(qs));
    }
    QuerySpec& qs = sc.queries[it->second];
    std::vector<int> after_local;
    for (const std::string& a : standalone[i].after) {
      const std::string& aid = exchanges[static_cast<size_t>(index_of.at(a))].at("id").get<std::string>();
      for (size_t k = 0; k < qs.exchanges.size(); ++k)
        if (qs.exchanges[k].id == aid) after_local.push_back(static_cast<int>(k));
    }
    add_standalone(qs, standalone[i], after_local);
  }
  std::set<std::string> names;
  for (const auto& [name, g] : group_of)
    names.insert(name);
  return names;
}

} // namespace

ExchangeOnlyForm read_exchange_only(const json& exchanges, int version, Scenario& sc, Errors& err) {
  const std::map<std::string, int> index_of = index_ids(exchanges, err);
  std::vector<Standalone> standalone(exchanges.size());
  ExchangeOnlyForm out;
  for (size_t i = 0; i < exchanges.size(); ++i) {
    const std::string xp = fmt::format("exchanges[{}]", i);
    json x = with_defaults(Section::exchange, exchanges[i], version);
    normalise_integers(Section::exchange, x, version);
    Standalone& s = standalone[i];
    ExchangeSpec& e = s.spec;
    Scenario::SettingsInputs::Exchange echo;
    echo.given = given_keys(Section::exchange, exchanges[i], version);
    echo.flags = read_exchange(x, xp, {sc.flags, sc.settings_inputs.flags}, version, e, err);
    bind_fields(Section::exchange, x, s.ends);
    e.index = static_cast<int>(i);
    if (sc.query_order == QueryOrder::sequential && e.query.empty())
      err.add(xp + ".query", "expected a query name: query_order is \"sequential\"");
    place(xp, sc.cluster, e, err);
    check_receiver_counts(x, xp, e, err);
    configure_sender(e);
    per_receiver(x, "receiver_consumer_slowdown", xp, e.receivers(), s.ends.receiver_consumer_slowdown, err);
    // Ids of exchanges, resolved to indices once every exchange is known.
    s.after = x.at("after").get<std::vector<std::string>>();
    check_after(exchanges, index_of, i, xp, s, err);
    read_faults(x.at("faults"), xp, e, err);
    for (const json& fault : x.at("faults"))
      echo.faults.push_back(given_keys(Section::fault, fault, version));
    echo.ends = s.ends;
    echo.unbound = unbound_rows(x, version);
    sc.settings_inputs.exchanges.push_back(std::move(echo));
  }
  err.throw_if_any();
  {
    // `after` must not loop.
    std::vector<std::vector<int>> after(exchanges.size());
    for (size_t i = 0; i < exchanges.size(); ++i)
      for (const std::string& a : standalone[i].after)
        after[i].push_back(index_of.at(a));
    int at = 0;
    if (has_cycle(after, at)) err.add(fmt::format("exchanges[{}].after", at), "the `after` references form a cycle");
  }
  err.throw_if_any();
  out.query_names = group_by_query(exchanges, index_of, standalone, sc);
  return out;
}

} // namespace exsim
