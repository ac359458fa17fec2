#include "input/scenario.hpp"

#include "input/check.hpp"
#include "input/migrate.hpp"
#include "input/parameters.hpp"
#include "input/suggest.hpp"
#include "models/query/plan.hpp"
#include "input/remote_scan.hpp"

#include <fmt/format.h>

#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <functional>
#include <map>
#include <set>
#include <tuple>

namespace exsim {

using nlohmann::json;

namespace {

// An adaptive K starts at rpcs_in_flight_per_channel and may not start above its cap. `path` names
// the flags object that set them.
void check_window_flags(const Flags& f, const std::string& path, Errors& err) {
  if (f.rpcs_in_flight_policy != WindowPolicyKind::fixed && f.rpcs_in_flight_max < f.rpcs_in_flight_per_channel)
    err.add(path + ".rpcs_in_flight_max",
            fmt::format("expected at least rpcs_in_flight_per_channel ({}), where an adaptive policy ({}) starts; "
                        "got {}",
                        f.rpcs_in_flight_per_channel, to_string(f.rpcs_in_flight_policy), f.rpcs_in_flight_max));
}

// Reads the keys an exchange has in both forms (standalone and in a query). `x` has its
// defaults filled in; `global_flags` are the scenario's.
void read_exchange(const json& x, const std::string& xp, const json& global_flags, int version, ExchangeSpec& e,
                   json& eff_flags, Errors& err) {
  bind_fields(Section::exchange, x, e);
  bind_fields(Section::exchange, x, e.shape);
  bind_fields(Section::exchange, x, e.costs);
  if (e.partitioning != Partitioning::directed) e.directed_fanout = 1; // only DIRECTED sends a row to several
  const json xflags = x.at("flags");
  const bool k_explicit = xflags.contains("rpcs_in_flight_per_channel");
  eff_flags = global_flags;
  for (const auto& [k, v] : xflags.items()) {
    if (find_param(Section::flags, k, version)->daemon_wide)
      err.add(xp + ".flags." + k, "a daemon-wide setting (the pools are shared by every receiver on a daemon): set "
                                  "it in the top-level flags");
    eff_flags[k] = v;
  }
  normalise_integers(Section::flags, eff_flags, version);
  bind_fields(Section::flags, eff_flags, e.flags);
  e.k_set_by_exchange = k_explicit;
  if (e.merging && k_explicit && e.flags.rpcs_in_flight_per_channel > 1)
    err.add(xp + ".flags.rpcs_in_flight_per_channel",
            fmt::format("a merging exchange keeps K=1 (batches of one sender must arrive in order); got {}",
                        e.flags.rpcs_in_flight_per_channel));
  if (e.merging && xflags.contains("rpcs_in_flight_policy") && e.flags.rpcs_in_flight_policy != WindowPolicyKind::fixed)
    err.add(xp + ".flags.rpcs_in_flight_policy",
            fmt::format("a merging exchange keeps K=1 (batches of one sender must arrive in order); got {}",
                        to_string(e.flags.rpcs_in_flight_policy)));
  if (k_explicit || xflags.contains("rpcs_in_flight_policy") || xflags.contains("rpcs_in_flight_max"))
    check_window_flags(e.flags, xp + ".flags", err);
  if (x.contains("expected") && !x.at("expected").empty()) e.expected_json = x.at("expected").dump();
}

// An exchange's array of one number per receiver instance, bound from `key`: given, it must have
// that many; absent, every receiver gets 1 (the row's derived default).
void per_receiver(const json& x, const char* key, const std::string& xp, int receivers,
                  std::vector<double>& v, Errors& err) {
  if (!x.contains(key)) {
    v.assign(static_cast<size_t>(receivers), 1.0);
  } else if (static_cast<int>(v.size()) != receivers) {
    err.add(join_path(xp, key),
            fmt::format("expected one number per receiver instance ({}), got {}", receivers, v.size()));
  }
}

// Once the receivers are known: their weights, the DIRECTED fanout.
void check_receiver_counts(const json& x, const std::string& xp, ExchangeSpec& e, Errors& err) {
  const int receivers = e.receivers();
  per_receiver(x, "receiver_weights", xp, receivers, e.receiver_weights, err);
  if (e.directed_fanout > receivers)
    err.add(xp + ".directed_fanout", fmt::format("expected at most the number of receiver instances ({}), got {}",
                                                 receivers, e.directed_fanout));
}

// Once the receivers are known: the sender's configuration, built here once for the sender and the
// results.
void configure_sender(ExchangeSpec& e) {
  e.sender = sender_config({.partitioning = e.partitioning,
                            .merging = e.merging,
                            .receivers = e.receivers(),
                            .shape = e.shape,
                            .buffer_bytes = e.flags.data_stream_sender_buffer_size,
                            .batch_size = e.flags.batch_size,
                            .k_flag = e.flags.rpcs_in_flight_per_channel,
                            .k_set_by_exchange = e.k_set_by_exchange,
                            .k_policy = e.flags.rpcs_in_flight_policy,
                            .k_max = e.flags.rpcs_in_flight_max});
}

// Merges exchange_defaults into an exchange (its flags key by key).
void apply_exchange_defaults(json& x, const json& defaults, bool in_query, int version) {
  for (const auto& [key, value] : defaults.items()) {
    const ParamSpec* p = find_param(Section::exchange, key, version);
    if (in_query && p && p->standalone_only) continue;
    if (key == "flags" && x.contains("flags") && x["flags"].is_object()) {
      for (const auto& [fk, fv] : value.items())
        if (!x["flags"].contains(fk)) x["flags"][fk] = fv;
    } else if (!x.contains(key)) {
      x[key] = value;
    }
  }
}

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

// A spec the parser builds itself (the exchange-only form's fragments and operators) starts from
// its rows' defaults, as one read from an empty object.
template <class T> T from_defaults(Section s) {
  T t{};
  bind_fields(s, json::object(), t);
  return t;
}

// --- the exchange-only form ------------------------------------------------------------

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

// --- whole queries -----------------------------------------------------------------------

// Which keys each operator uses besides op, id, source.
const std::map<std::string, std::set<std::string>>& op_keys() {
  static const std::map<std::string, std::set<std::string>> keys{
      {"scan", {"rows", "table", "rows_read", "scan_ranges", "instance_weights", "runtime_filters"}},
      {"exchange", {"exchange"}},
      {"hash_join", {"rows", "probe", "build", "shared"}},
      {"nested_loop_join", {"rows", "probe", "build", "shared"}},
      {"aggregate", {"rows", "input", "phase", "groups"}},
      {"sort", {"rows", "input"}},
      {"top_n", {"rows", "input", "limit", "partitioned"}},
      {"analytic", {"rows", "input"}},
      {"select", {"rows", "input"}},
      {"limit", {"rows", "input", "limit"}},
      {"union", {"rows", "inputs"}}};
  return keys;
}

struct QueryParse {
  std::string path; // of the plan (the query, or its `parallel`)
  std::map<std::string, int> exchange_index;
  std::map<std::string, int> fragment_index;
  std::map<std::string, std::pair<int, int>> op_at; // op id -> (fragment, op)
  std::vector<std::string> fragment_paths;
  std::vector<std::vector<std::string>> op_paths;    // [fragment][op]
  std::vector<int> leaf_uses, sink_uses;             // per exchange
  std::vector<std::pair<std::string, std::string>> build_refs; // (join op path, fragment id) to check
  // Runtime filters to resolve once every operator is known: (filter path, fragment, scan op, filter).
  struct FilterRef {
    std::string path;
    int fragment;
    int op;
    size_t k;
  };
  std::vector<FilterRef> filter_refs;
};

// Parses operator `node` into fragment `f`; returns its index.
int parse_op(const json& node, const std::string& path, int fi, FragmentSpec& f, QueryParse& qp, QuerySpec& q,
             Errors& err, int version) {
  check_object(Section::op, node, path, err, version);
  if (!node.is_object() || !node.contains("op") || !node.contains("id") || !node["op"].is_string() ||
      !node["id"].is_string())
    return -1;
  const std::string kind = node["op"].get<std::string>();
  if (!op_keys().count(kind)) return -1; // reported by check_object
  const std::set<std::string>& allowed = op_keys().at(kind);
  for (const auto& [key, value] : node.items())
    if (key != "op" && key != "id" && key != "source" && !allowed.count(key) && find_param(Section::op, key, version))
      err.add(join_path(path, key), fmt::format("not used by a {} operator", kind));
  // The plain values; one of the wrong type is reported by check_object, its row's default stands in.
  OpSpec o{};
  bind_fields(Section::op, bindable_values(Section::op, node, version), o);
  const int index = static_cast<int>(f.ops.size());
  f.ops.push_back(o);
  qp.op_paths[static_cast<size_t>(fi)].push_back(path);
  if (o.id.empty())
    err.add(path + ".id", "expected a non-empty string");
  else if (!qp.op_at.emplace(o.id, std::make_pair(fi, index)).second)
    err.add(path + ".id", fmt::format("duplicate operator id \"{}\" in the query", o.id));
  auto need = [&](const char* key) {
    if (!node.contains(key)) err.add(join_path(path, key), fmt::format("required for a {} operator", kind));
    return node.contains(key);
  };
  auto child = [&](const char* key) -> int {
    if (!need(key)) return -1;
    return parse_op(node[key], join_path(path, key), fi, f, qp, q, err, version);
  };
  std::vector<int> inputs;
  if (o.kind != OpKind::exchange) need("rows");
  OpSpec& me = f.ops[static_cast<size_t>(index)];
  const double rows = me.rows;
  switch (o.kind) {
  case OpKind::scan:
    if (!node.contains("rows_read") || !node["rows_read"].is_number())
      me.rows_read = rows; // the row's derived default
    if (me.rows_read < rows) err.add(path + ".rows_read", fmt::format("expected at least rows ({})", rows));
    if (node.contains("runtime_filters") && node["runtime_filters"].is_array())
      for (size_t k = 0; k < node["runtime_filters"].size(); ++k) {
        const json& rf = node["runtime_filters"][k];
        const std::string rp = fmt::format("{}.runtime_filters[{}]", path, k);
        RuntimeFilterSpec spec;
        if (!rf.is_object()) {
          err.add(rp, fmt::format("expected {{\"join\": id, \"keep\": fraction}}, got {}", json_kind(rf)));
          continue;
        }
        for (const auto& [key, value] : rf.items())
          if (key != "join" && key != "keep") err.add(join_path(rp, key), "unknown key; expected one of: join, keep");
        if (!rf.contains("join") || !rf["join"].is_string() || rf["join"].get<std::string>().empty())
          err.add(rp + ".join", "required: the id of the hash join whose build produces the filter");
        else
          spec.join = rf["join"].get<std::string>();
        // A join's filter applies to a scan once: listed twice, its rows would be filtered twice.
        for (size_t m = 0; m < me.runtime_filters.size(); ++m)
          if (!spec.join.empty() && me.runtime_filters[m].join == spec.join)
            err.add(rp + ".join", fmt::format("the filter of join \"{}\" is already listed at runtime_filters[{}]; "
                                              "expected each join's filter once per scan",
                                              spec.join, m));
        if (!rf.contains("keep") || !rf["keep"].is_number())
          err.add(rp + ".keep", "required: the fraction of the scan's rows the filter keeps, in (0, 1]");
        else if (!(rf["keep"].get<double>() > 0 && rf["keep"].get<double>() <= 1))
          err.add(rp + ".keep", fmt::format("expected a fraction in (0, 1], got {}", show(rf["keep"])));
        else
          spec.keep = rf["keep"].get<double>();
        qp.filter_refs.push_back({rp, fi, index, me.runtime_filters.size()});
        me.runtime_filters.push_back(std::move(spec));
      }
    break;
  case OpKind::exchange:
    if (need("exchange") && node["exchange"].is_string()) {
      const std::string id = node["exchange"].get<std::string>();
      auto it = qp.exchange_index.find(id);
      if (it == qp.exchange_index.end()) {
        err.add(path + ".exchange", fmt::format("no exchange of this plan has id \"{}\"", id));
      } else {
        me.exchange = it->second;
        qp.leaf_uses[static_cast<size_t>(it->second)]++;
        q.exchanges[static_cast<size_t>(it->second)].receiver_fragment = fi;
      }
    }
    break;
  case OpKind::hash_join:
  case OpKind::nested_loop_join: {
    inputs.push_back(child("probe"));
    if (need("build")) {
      const json& b = node["build"];
      if (b.is_object() && b.contains("fragment")) {
        if (b.size() != 1 || !b["fragment"].is_string())
          err.add(path + ".build", "expected {\"fragment\": id} or an operator");
        else
          qp.build_refs.emplace_back(path, b["fragment"].get<std::string>());
      } else {
        inputs.push_back(parse_op(b, path + ".build", fi, f, qp, q, err, version));
      }
    }
    break;
  }
  case OpKind::union_all:
    if (need("inputs") && node["inputs"].is_array())
      for (size_t k = 0; k < node["inputs"].size(); ++k)
        inputs.push_back(parse_op(node["inputs"][k], fmt::format("{}.inputs[{}]", path, k), fi, f, qp, q, err, version));
    break;
  default:
    inputs.push_back(child("input"));
    break;
  }
  OpSpec& done = f.ops[static_cast<size_t>(index)];
  for (int c : inputs)
    if (c >= 0) done.inputs.push_back(c);
  if (done.kind == OpKind::top_n && done.partitioned) {
    if (node.contains("limit"))
      err.add(join_path(path, "limit"), "a partitioned top_n takes no limit: its instances share its rows");
  } else if (done.kind == OpKind::top_n || done.kind == OpKind::limit) {
    need("limit");
  }
  return index;
}

// `counts`: check what depends on the instance counts (weights per instance, the DIRECTED fanout);
// false for a plan checked at an mt_dop it may not run at.
void parse_plan(const json& plan, const std::string& plan_path, QuerySpec& q, const json& defaults,
                const json& global_flags, const ClusterSpec& cluster, int mt_dop, int version, int& exchange_index,
                json& settings, Errors& err, bool counts = true) {
  QueryParse qp;
  qp.path = plan_path;
  // Exchanges first: the operators refer to them.
  json xs_settings = json::array();
  const json& xs = plan.contains("exchanges") ? plan["exchanges"] : json::array();
  std::vector<json> filled;
  for (size_t i = 0; i < xs.size(); ++i) {
    const std::string xp = fmt::format("{}.exchanges[{}]", plan_path, i);
    json x = xs[i];
    if (!x.is_object()) {
      err.add(xp, fmt::format("expected an object, got {}", json_kind(x)));
      continue;
    }
    apply_exchange_defaults(x, defaults, true, version);
    check_object(Section::exchange, x, xp, err, version, {}, true, true);
    if (x.contains("flags")) check_object(Section::flags, x["flags"], xp + ".flags", err, version);
    if (!x.contains("id") || !x["id"].is_string()) continue;
    const std::string id = x["id"].get<std::string>();
    if (id.empty())
      err.add(xp + ".id", "expected a non-empty string");
    else if (!qp.exchange_index.emplace(id, static_cast<int>(q.exchanges.size())).second)
      err.add(xp + ".id", fmt::format("duplicate exchange id \"{}\" in the query", id));
    q.exchanges.emplace_back();
    filled.push_back(x);
  }
  err.throw_if_any();
  for (size_t i = 0; i < q.exchanges.size(); ++i) {
    const std::string xp = fmt::format("{}.exchanges[{}]", plan_path, i);
    json x = with_defaults(Section::exchange, filled[i], version, true);
    normalise_integers(Section::exchange, x, version);
    json eff_flags;
    ExchangeSpec& e = q.exchanges[i];
    read_exchange(x, xp, global_flags, version, e, eff_flags, err);
    e.query = q.name;
    e.index = exchange_index++;
  }
  qp.leaf_uses.assign(q.exchanges.size(), 0);
  qp.sink_uses.assign(q.exchanges.size(), 0);
  // Fragments and their operators.
  const json& fs = plan.at("fragments");
  std::vector<std::string> sink_join; // per fragment: the join it builds, if any
  for (size_t i = 0; i < fs.size(); ++i) {
    const std::string fp = fmt::format("{}.fragments[{}]", plan_path, i);
    const json& fj = fs[i];
    check_object(Section::fragment, fj, fp, err, version);
    q.fragments.emplace_back();
    qp.fragment_paths.push_back(fp);
    qp.op_paths.emplace_back();
    sink_join.emplace_back();
    if (!fj.is_object() || !fj.contains("id") || !fj["id"].is_string()) continue;
    const std::string id = fj["id"].get<std::string>(); // the fragment binds it once checked
    if (id.empty())
      err.add(fp + ".id", "expected a non-empty string");
    else if (!qp.fragment_index.emplace(id, static_cast<int>(i)).second)
      err.add(fp + ".id", fmt::format("duplicate fragment id \"{}\" in the query", id));
  }
  err.throw_if_any();
  for (size_t i = 0; i < fs.size(); ++i) {
    const std::string fp = qp.fragment_paths[i];
    const json fj = with_defaults(Section::fragment, fs[i], version);
    FragmentSpec& f = q.fragments[i];
    bind_fields(Section::fragment, fj, f);
    const json& sink = fj.at("sink");
    check_object(Section::sink, sink, fp + ".sink", err, version);
    if (sink.size() != 1) {
      err.add(fp + ".sink", "expected exactly one of \"exchange\", \"result\", \"join_build\"");
    } else if (sink.contains("exchange") && sink["exchange"].is_string()) {
      const std::string id = sink["exchange"].get<std::string>();
      auto it = qp.exchange_index.find(id);
      if (it == qp.exchange_index.end()) {
        err.add(fp + ".sink.exchange", fmt::format("no exchange of this plan has id \"{}\"", id));
      } else {
        f.sink = SinkKind::exchange;
        f.sink_exchange = it->second;
        qp.sink_uses[static_cast<size_t>(it->second)]++;
        q.exchanges[static_cast<size_t>(it->second)].sender_fragment = static_cast<int>(i);
      }
    } else if (sink.contains("result")) {
      if (!sink["result"].is_boolean() || !sink["result"].get<bool>()) err.add(fp + ".sink.result", "expected true");
      f.sink = SinkKind::result;
    } else if (sink.contains("join_build") && sink["join_build"].is_string()) {
      f.sink = SinkKind::join_build;
      sink_join[i] = sink["join_build"].get<std::string>();
    }
    f.root = parse_op(fj.at("root"), fp + ".root", static_cast<int>(i), f, qp, q, err, version);
  }
  err.throw_if_any();
  // Every exchange has one sending and one receiving fragment.
  for (size_t x = 0; x < q.exchanges.size(); ++x) {
    const std::string xp = fmt::format("{}.exchanges[{}]", plan_path, x);
    if (qp.sink_uses[x] != 1)
      err.add(xp, fmt::format("expected exactly one fragment whose sink is this exchange, found {}", qp.sink_uses[x]));
    if (qp.leaf_uses[x] != 1)
      err.add(xp, fmt::format("expected exactly one `exchange` operator reading it, found {}", qp.leaf_uses[x]));
  }
  int results = 0;
  for (const FragmentSpec& f : q.fragments)
    results += f.sink == SinkKind::result ? 1 : 0;
  if (results != 1)
    err.add(plan_path + ".fragments",
            fmt::format("expected exactly one fragment whose sink is {{\"result\": true}}, found {}", results));
  // Joins built by another fragment, and the fragments that build them, name each other.
  for (const auto& [join_path_text, frag] : qp.build_refs) {
    auto fit = qp.fragment_index.find(frag);
    if (fit == qp.fragment_index.end()) {
      err.add(join_path_text + ".build.fragment", fmt::format("no fragment of this plan has id \"{}\"", frag));
      continue;
    }
    // Find the join by its path.
    for (size_t fi = 0; fi < q.fragments.size(); ++fi)
      for (size_t oi = 0; oi < qp.op_paths[fi].size(); ++oi)
        if (qp.op_paths[fi][oi] == join_path_text) {
          OpSpec& j = q.fragments[fi].ops[oi];
          j.build_fragment = fit->second;
          FragmentSpec& b = q.fragments[static_cast<size_t>(fit->second)];
          if (b.sink != SinkKind::join_build || sink_join[static_cast<size_t>(fit->second)] != j.id)
            err.add(join_path_text + ".build.fragment",
                    fmt::format("fragment \"{}\" must have the sink {{\"join_build\": \"{}\"}}", frag, j.id));
          b.sink_join_fragment = static_cast<int>(fi);
          b.sink_join_op = static_cast<int>(oi);
        }
  }
  // Runtime filters name the join producing them, in any fragment of the plan.
  for (const QueryParse::FilterRef& r : qp.filter_refs) {
    RuntimeFilterSpec& rf =
        q.fragments[static_cast<size_t>(r.fragment)].ops[static_cast<size_t>(r.op)].runtime_filters[r.k];
    if (rf.join.empty()) continue; // reported above
    auto it = qp.op_at.find(rf.join);
    const OpSpec* j = it == qp.op_at.end() ? nullptr
                                           : &q.fragments[static_cast<size_t>(it->second.first)]
                                                  .ops[static_cast<size_t>(it->second.second)];
    if (!j || !is_join(*j)) {
      err.add(r.path + ".join", fmt::format("no hash_join (or nested_loop_join) with id \"{}\" in query {}", rf.join, q.name));
      continue;
    }
    rf.fragment = it->second.first;
    rf.op = it->second.second;
    // A scan feeding the join's own build would wait for a filter that needs its rows first.
    const FragmentSpec& jf = q.fragments[static_cast<size_t>(rf.fragment)];
    bool on_build_side = j->build_fragment >= 0 && j->build_fragment == r.fragment;
    if (j->build_fragment < 0 && j->inputs.size() == 2 && r.fragment == rf.fragment) {
      std::vector<int> todo{j->inputs[1]};
      while (!todo.empty() && !on_build_side) {
        const int o = todo.back();
        todo.pop_back();
        if (o < 0 || o >= static_cast<int>(jf.ops.size())) continue;
        on_build_side = o == r.op;
        for (int c : jf.ops[static_cast<size_t>(o)].inputs)
          todo.push_back(c);
      }
    }
    if (on_build_side)
      err.add(r.path + ".join", fmt::format("the scan is on the build side of join \"{}\", whose filter needs its rows",
                                            rf.join));
  }
  for (size_t i = 0; i < q.fragments.size(); ++i)
    if (q.fragments[i].sink == SinkKind::join_build && q.fragments[i].sink_join_fragment < 0)
      err.add(qp.fragment_paths[i] + ".sink.join_build",
              fmt::format("no join of this plan has its build in this fragment (expected a join with id \"{}\" "
                          "whose build is {{\"fragment\": \"{}\"}})",
                          sink_join[i], q.fragments[i].id));
  err.throw_if_any();
  // Placement, then checks that need the instance counts.
  try {
    place_fragments(q, cluster.executors, mt_dop);
  } catch (const PlanError& e) {
    err.add(plan_path, e.what());
  }
  err.throw_if_any();
  for (size_t i = 0; i < q.fragments.size(); ++i) {
    const FragmentSpec& f = q.fragments[i];
    const std::string fp = qp.fragment_paths[i];
    if (f.first_executor + f.executors > cluster.executors)
      err.add(fp, fmt::format("fragment {} runs on executors {}..{}, but cluster.executors is {}: lower its "
                              "executors / first_executor, or, for a scenario imported from a profile, re-import "
                              "it for this cluster (exsim profile import PROFILE --executors {})",
                              f.id, f.first_executor, f.first_executor + f.executors - 1, cluster.executors,
                              cluster.executors));
    try {
      plan_fragment(f);
    } catch (const PlanError& e) {
      err.add(fp + ".root", e.what());
    }
    for (size_t oi = 0; oi < f.ops.size() && counts; ++oi)
      if (!f.ops[oi].instance_weights.empty() && static_cast<int>(f.ops[oi].instance_weights.size()) != f.instances())
        err.add(qp.op_paths[i][oi] + ".instance_weights",
                fmt::format("expected one number per instance of its fragment ({}), got {}", f.instances(),
                            f.ops[oi].instance_weights.size()));
  }
  for (size_t x = 0; x < q.exchanges.size() && counts; ++x)
    check_receiver_counts(filled[x], fmt::format("{}.exchanges[{}]", plan_path, x), q.exchanges[x], err);
  err.throw_if_any();
  for (ExchangeSpec& e : q.exchanges)
    configure_sender(e);
  // What ran, for the results.
  json frag_settings = json::array();
  for (const FragmentSpec& f : q.fragments)
    frag_settings.push_back({{"id", f.id},
                             {"executors", f.executors},
                             {"first_executor", f.first_executor},
                             {"instances_per_executor", f.instances_per_executor}});
  for (const ExchangeSpec& e : q.exchanges)
    xs_settings.push_back({{"id", e.id},
                           {"partitioning", to_string(e.partitioning)},
                           {"merging", e.merging},
                           {"senders", e.senders()},
                           {"receivers", e.receivers()},
                           {"k", e.sender.k}});
  settings = {{"plan", plan_path.find(".parallel") != std::string::npos ? "parallel" : "fragments"},
              {"fragments", frag_settings},
              {"exchanges", xs_settings}};
}

// The simulator keeps state per channel (about 1.5 KB): a scenario asking for more channels than a
// machine can hold is refused up front, not after its memory ran out. Queries run one after another
// (query_order "sequential") count one at a time. `exchange_only_groups`: the first queries, those
// of the exchange-only form.
void check_channel_count(const Scenario& sc, size_t exchange_only_groups, Errors& err) {
  constexpr int64_t kMaxChannels = 10'000'000;
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
              fmt::format("{} channels in the query; at most {} can be simulated at once (each keeps about 1.5 KB)",
                          in_query, kMaxChannels));
      return;
    }
    total += in_query;
  }
  if (sc.query_order == QueryOrder::concurrent && total > kMaxChannels)
    err.add(where, fmt::format("{} channels in the scenario, the most on {}; at most {} can be simulated at once "
                               "(each keeps about 1.5 KB)",
                               total, what, kMaxChannels));
}

// Where the parser is, as a JSON path, for the limits' messages.
struct JsonPathTracker {
  struct Frame {
    bool array;
    size_t index = 0;
    std::string key;
    std::set<std::string> keys; // of an object, so far
  };
  std::vector<Frame> frames;

  std::string path() const {
    std::string out;
    for (const Frame& f : frames) {
      if (f.array)
        out += fmt::format("[{}]", f.index);
      else if (!f.key.empty())
        out = join_path(out, f.key);
    }
    return out;
  }
  // A value of the innermost container is complete.
  void completed() {
    if (!frames.empty() && frames.back().array) ++frames.back().index;
  }
};

// A path for a message: its start and its end when it is long (a deep nesting).
std::string short_path(const std::string& path) {
  if (path.empty()) return "(top level)";
  return path.size() <= 120 ? path : path.substr(0, 60) + " ... " + path.substr(path.size() - 40);
}

struct JsonLimitError {
  std::string path, what;
};

// Text that is not JSON at all (for --set: a bare word).
class JsonSyntaxError : public InputError {
public:
  using InputError::InputError;
};

template <class J>
J parse_with_limits(const std::string& text, const std::string& label) {
  JsonPathTracker at;
  using Event = typename J::parse_event_t;
  auto callback = [&](int depth, Event event, J& parsed) -> bool {
    switch (event) {
    case Event::object_start:
    case Event::array_start:
      if (depth >= kMaxJsonDepth)
        throw JsonLimitError{at.path(), fmt::format("nested deeper than {} levels", kMaxJsonDepth)};
      at.frames.push_back({event == Event::array_start, 0, {}, {}});
      break;
    case Event::key: {
      const std::string key = parsed.template get<std::string>();
      JsonPathTracker::Frame& f = at.frames.back();
      f.key = key;
      if (!f.keys.insert(key).second)
        throw JsonLimitError{at.path(), "duplicate key in one object (JSON readers keep one of them)"};
      break;
    }
    case Event::object_end:
    case Event::array_end:
      at.frames.pop_back();
      at.completed();
      break;
    case Event::value:
      at.completed();
      break;
    }
    return true;
  };
  try {
    return J::parse(text, callback);
  } catch (const JsonLimitError& e) {
    throw InputError(fmt::format("{}: {}: {}", label, short_path(e.path), e.what));
  } catch (const json::parse_error& e) {
    size_t line = 1, col = 1;
    for (size_t i = 0; i + 1 < e.byte && i < text.size(); ++i) {
      if (text[i] == '\n') {
        ++line;
        col = 1;
      } else {
        ++col;
      }
    }
    throw JsonSyntaxError(fmt::format("{}: not valid JSON (line {}, column {}): {}", label, line, col, e.what()));
  } catch (const json::out_of_range& e) { // 1e999
    std::string what = e.what();
    what.erase(0, what.find("] ") == std::string::npos ? 0 : what.find("] ") + 2); // nlohmann's error id
    const std::string path = at.path();
    throw InputError(fmt::format("{}: {}{}; expected a number within a double's range", label,
                                 path.empty() ? "" : short_path(path) + ": ", what));
  }
}


// --- --set overrides -------------------------------------------------------------------

struct PathToken {
  bool is_index;
  std::string key;
  size_t index;
};

// "--set NAME=VALUE", the way the user typed it, to start every override message.
std::string set_arg(const Override& o) {
  return fmt::format("--set {}={}", o.first, o.second);
}

std::vector<PathToken> parse_json_path(const Override& o) {
  const std::string& path = o.first;
  std::vector<PathToken> tokens;
  size_t i = 0;
  while (i < path.size()) {
    if (path[i] == '.') {
      ++i;
      continue;
    }
    if (path[i] == '[') {
      const size_t close = path.find(']', i);
      if (close == std::string::npos)
        throw InputError(fmt::format("{}: unclosed '[' in the JSON path {}", set_arg(o), path));
      const std::string num = path.substr(i + 1, close - i - 1);
      if (num.empty() || num.find_first_not_of("0123456789") != std::string::npos)
        throw InputError(fmt::format("{}: expected an array index in [], got \"{}\"", set_arg(o), num));
      if (num.size() > 9) // more elements than any scenario can hold; std::stoull would overflow past 20 digits
        throw InputError(fmt::format("{}: {}[{}] does not exist in the scenario (expected an index below 10^9)",
                                     set_arg(o), path.substr(0, i), num));
      tokens.push_back({true, "", static_cast<size_t>(std::stoull(num))});
      i = close + 1;
      continue;
    }
    const size_t end = path.find_first_of(".[", i);
    tokens.push_back({false, path.substr(i, end == std::string::npos ? std::string::npos : end - i), 0});
    i = end == std::string::npos ? path.size() : end;
  }
  if (tokens.empty()) throw InputError(fmt::format("{}: empty NAME", set_arg(o)));
  return tokens;
}

// What a position in a scenario holds, so that every key of a --set path is checked against the
// parameter table before anything is written.
struct PathPlace {
  enum Kind { object, array_of_objects, map_of_objects, free } kind;
  Section section; // of the objects, for the first three kinds
};

// Where the value of `key` inside an object of section `s` leads, in schema `version`.
PathPlace place_of(Section s, const std::string& key, int version) {
  using K = PathPlace::Kind;
  if (s == Section::scenario) {
    if (key == "cluster") return {K::object, Section::cluster};
    if (key == "flags") return {K::object, Section::flags};
    if (key == "costs") return {K::object, Section::costs};
    if (key == "exchange_defaults") return {K::object, Section::exchange};
    if (key == "exchanges") return {K::array_of_objects, Section::exchange};
    if (key == "queries")
      return version >= 2 ? PathPlace{K::array_of_objects, Section::query}
                          : PathPlace{K::map_of_objects, Section::query_rows};
  }
  if (s == Section::remote_scan) {
    if (key == "cluster") return {K::object, Section::remote_scan_cluster};
    if (key == "s3") return {K::object, Section::remote_scan_s3};
    if (key == "splits") return {K::object, Section::remote_scan_splits};
    if (key == "prefetch") return {K::object, Section::remote_scan_prefetch};
    if (key == "scan") return {K::object, Section::remote_scan_scan};
  }
  if (s == Section::query || s == Section::plan) {
    if (key == "fragments") return {K::array_of_objects, Section::fragment};
    if (key == "exchanges") return {K::array_of_objects, Section::exchange};
    if (key == "parallel") return {K::object, Section::plan};
  }
  if (s == Section::fragment) {
    if (key == "root") return {K::object, Section::op};
    if (key == "sink") return {K::object, Section::sink};
  }
  if (s == Section::op) {
    if (key == "input" || key == "probe") return {K::object, Section::op};
    if (key == "inputs") return {K::array_of_objects, Section::op};
  }
  if (s == Section::exchange) {
    if (key == "flags") return {K::object, Section::flags};
    if (key == "faults") return {K::array_of_objects, Section::fault};
  }
  return {K::free, s}; // a value, or a free-form object (provenance, expected, a join's build)
}

// Applies one override; returns the JSON path it wrote (flags resolved to flags.NAME), so that a
// later error at that path can say the value came from the command line.
std::string apply_override(json& doc, const Override& o) {
  int version = kSchemaVersion;
  if (doc.is_object() && doc.contains("schema_version") && doc["schema_version"].is_number_integer())
    version = static_cast<int>(std::clamp<int64_t>(doc["schema_version"].get<int64_t>(), 1, kSchemaVersion));
  std::string path = o.first;
  if (find_param(Section::flags, path, version)) path = "flags." + path;
  if (find_param(Section::remote_scan_prefetch, path))
    path = "prefetch." + path; // executorSplitPrefetchConcurrency
  const auto tokens = parse_json_path({path, o.second});
  const bool remote_scan = is_remote_scan(doc);
  if (remote_scan && tokens.size() == 1 && !tokens[0].is_index) { // series_step_s, or a key of every kind
    const ParamSpec* top = find_param(Section::scenario, path, version);
    if (!find_param(Section::remote_scan, path) && !(top && top->every_kind)) {
      std::vector<std::string> names = key_names(Section::remote_scan_prefetch);
      for (const ParamSpec* p : every_kind_params())
        names.push_back(p->name);
      const std::vector<std::string> own = key_names(Section::remote_scan);
      names.insert(names.end(), own.begin(), own.end());
      throw InputError(fmt::format("{}: unknown prefetch key or remote_scan scenario key;{} prefetch keys: {}; or a "
                                   "JSON path into the scenario (s3.data_ttfb_p50_ms, splits.count) from its keys: {}",
                                   set_arg(o), did_you_mean(o.first, names), known_keys(Section::remote_scan_prefetch),
                                   known_keys(Section::remote_scan)));
    }
  }
  if (!remote_scan && tokens.size() == 1 && !tokens[0].is_index && !find_param(Section::scenario, path, version)) {
    std::vector<std::string> names = key_names(Section::flags, version);
    const std::vector<std::string> top = key_names(Section::scenario, version);
    names.insert(names.end(), top.begin(), top.end());
    throw InputError(fmt::format("{}: unknown flag or scenario key;{} flags: {}; or a JSON path into the "
                                 "scenario (cluster.rtt_us, queries[0].fragments[1].instances_per_executor) "
                                 "from its keys: {}",
                                 set_arg(o), did_you_mean(o.first, names), known_keys(Section::flags, version),
                                 known_keys(Section::scenario, version)));
  }
  json value;
  try {
    value = parse_input_json_unordered(o.second, set_arg(o));
  } catch (const JsonSyntaxError&) {
    // A bare word is a string (--set eos_flush=serial); a number beyond a double's range, too deep
    // a nesting or a duplicate key stays an error.
    value = o.second;
  }
  json* node = &doc;
  std::string walked;
  PathPlace place{PathPlace::object, is_remote_scan(doc) ? Section::remote_scan : Section::scenario};
  for (size_t t = 0; t < tokens.size(); ++t) {
    const PathToken& tok = tokens[t];
    if (tok.is_index) {
      walked += fmt::format("[{}]", tok.index);
      if (!node->is_array() || tok.index >= node->size())
        throw InputError(fmt::format("{}: {} does not exist in the scenario", set_arg(o), walked));
      if (place.kind == PathPlace::array_of_objects) place.kind = PathPlace::object;
      node = &(*node)[tok.index];
    } else {
      walked = join_path(walked, tok.key);
      if (place.kind == PathPlace::map_of_objects) {
        place.kind = PathPlace::object; // a query name: any key
      } else if (place.kind == PathPlace::object) {
        const bool every_kind = place.section == Section::remote_scan && find_param(Section::scenario, tok.key, version) &&
                                find_param(Section::scenario, tok.key, version)->every_kind;
        if (!find_param(place.section, tok.key, version) && !every_kind)
          throw InputError(fmt::format("{}: {}: unknown key;{} expected one of: {}", set_arg(o), walked,
                                       did_you_mean(tok.key, key_names(place.section, version)),
                                       known_keys(place.section, version)));
        place = place_of(place.section, tok.key, version);
      } else if (place.kind == PathPlace::array_of_objects) {
        throw InputError(fmt::format("{}: {} is an array; expected an index such as {}[0]", set_arg(o),
                                     walked.substr(0, walked.size() - tok.key.size() - 1),
                                     walked.substr(0, walked.size() - tok.key.size() - 1)));
      }
      if (node->is_null()) *node = json::object();
      if (!node->is_object())
        throw InputError(fmt::format("{}: {} is not inside an object", set_arg(o), walked));
      node = &(*node)[tok.key];
    }
  }
  *node = value;
  return walked;
}


} // namespace

Override parse_override(const std::string& arg) {
  const size_t eq = arg.find('=');
  if (eq == std::string::npos || eq == 0)
    throw InputError(
        fmt::format("--set {}: expected NAME=VALUE (a flag such as rpcs_in_flight_per_channel=2, "
                    "or a JSON path such as cluster.rtt_us=50)",
                    arg));
  return {arg.substr(0, eq), arg.substr(eq + 1)};
}

nlohmann::ordered_json parse_input_json(const std::string& text, const std::string& label) {
  return parse_with_limits<nlohmann::ordered_json>(text, label);
}

nlohmann::json parse_input_json_unordered(const std::string& text, const std::string& label) {
  return parse_with_limits<nlohmann::json>(text, label);
}

std::string read_input_file(const std::string& path, const std::string& what) {
  auto fail = [&](int error) {
    return InputError(fmt::format("{}: cannot read the {}: {}", path, what, std::strerror(error)));
  };
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) throw fail(errno);
  if (S_ISDIR(st.st_mode)) throw fail(EISDIR);
  if (!S_ISREG(st.st_mode))
    throw InputError(fmt::format("{}: cannot read the {}: not a regular file (a device, FIFO or socket)", path, what));
  constexpr off_t kMaxBytes = off_t{1} << 30;
  if (st.st_size > kMaxBytes)
    throw InputError(fmt::format("{}: cannot read the {}: {} bytes, expected at most 1 GiB", path, what, st.st_size));
  std::FILE* f = std::fopen(path.c_str(), "rb");
  if (!f) throw fail(errno);
  std::string text;
  char buf[1 << 16];
  size_t n;
  while ((n = std::fread(buf, 1, sizeof buf, f)) > 0 && text.size() <= static_cast<size_t>(kMaxBytes))
    text.append(buf, n);
  const int error = std::ferror(f) ? errno : 0;
  std::fclose(f);
  if (error != 0) throw fail(error);
  if (text.size() > static_cast<size_t>(kMaxBytes))
    throw InputError(fmt::format("{}: cannot read the {}: it grew past 1 GiB while read", path, what));
  return text;
}

nlohmann::ordered_json read_scenario_json(const std::string& path) {
  return parse_input_json(read_input_file(path, "scenario file"), path);
}

Scenario load_scenario(const std::string& path, const std::vector<Override>& overrides) {
  return build_scenario(json(read_scenario_json(path)), path, overrides);
}

Scenario build_scenario(json doc, const std::string& file, const std::vector<Override>& overrides) {
  std::vector<std::pair<std::string, std::string>> overridden;
  std::string override_errors; // every bad --set at once, so that a sweep's names are fixed in one go
  for (const auto& o : overrides) {
    try {
      overridden.emplace_back(apply_override(doc, o), fmt::format("{}={}", o.first, o.second));
    } catch (const InputError& e) {
      override_errors += (override_errors.empty() ? "" : "\n") + std::string(e.what());
    }
  }
  if (!override_errors.empty()) throw InputError(override_errors);
  if (is_remote_scan(doc)) return load_remote_scan(std::move(doc), file);

  Errors err(file, overridden);
  if (!doc.is_object()) {
    err.add("", fmt::format("expected an object, got {}", json_kind(doc)));
    err.throw_if_any();
  }
  // The version decides which keys exist.
  int version = kSchemaVersion;
  {
    const ParamSpec& p = *find_param(Section::scenario, "schema_version", kSchemaVersion);
    if (!doc.contains("schema_version"))
      err.add("schema_version", "required key is missing; expected " + describe_expectation(p));
    else
      check_value(p, doc["schema_version"], "schema_version", err);
    err.throw_if_any();
    version = static_cast<int>(doc["schema_version"].get<double>());
  }

  // Phase 1: structure, against the parameter table.
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
  const json defaults = doc.value("exchange_defaults", json::object());
  json exchanges = doc.value("exchanges", json::array());
  for (size_t i = 0; i < exchanges.size(); ++i) {
    json& x = exchanges[i];
    const std::string xp = fmt::format("exchanges[{}]", i);
    if (!x.is_object()) {
      err.add(xp, fmt::format("expected an object, got {}", json_kind(x)));
      continue;
    }
    apply_exchange_defaults(x, defaults, false, version);
    check_object(Section::exchange, x, xp, err, version);
    if (x.contains("flags")) check_object(Section::flags, x["flags"], xp + ".flags", err, version);
    if (x.contains("faults") && x["faults"].is_array())
      for (size_t f = 0; f < x["faults"].size(); ++f)
        check_object(Section::fault, x["faults"][f], fmt::format("{}.faults[{}]", xp, f), err, version);
  }
  const json queries_json = version >= 2 ? doc.value("queries", json::array()) : json::array();
  for (size_t i = 0; i < queries_json.size(); ++i) {
    const std::string qp = fmt::format("queries[{}]", i);
    check_object(Section::query, queries_json[i], qp, err, version);
    if (queries_json[i].is_object() && queries_json[i].contains("parallel"))
      check_object(Section::plan, queries_json[i]["parallel"], qp + ".parallel", err, version);
  }
  err.throw_if_any();
  if (exchanges.empty() && queries_json.empty())
    err.add(version >= 2 ? "queries" : "exchanges", "expected at least one query or exchange to simulate");
  err.throw_if_any();

  // Defaults, then phase 2: meaning.
  Scenario sc;
  sc.file = file;
  sc.schema_version = version;
  sc.name = doc.contains("name") ? doc["name"].get<std::string>() : default_scenario_name(file);
  sc.description = doc.value("description", std::string());
  sc.query_order = doc.value("query_order", std::string("concurrent")) == "sequential" ? QueryOrder::sequential
                                                                                       : QueryOrder::concurrent;
  sc.seed = read_seed(doc);

  json cluster = doc.value("cluster", json::object());
  if (version == 1) { // schema 1 knew cores only, 16 by default, every one a full thread
    if (!cluster.contains("threads_per_core")) cluster["threads_per_core"] = 1;
    if (!cluster.contains("cores_per_executor")) cluster["cores_per_executor"] = 16;
  }
  cluster = with_defaults(Section::cluster, cluster, version);
  normalise_integers(Section::cluster, cluster, version);
  bind_fields(Section::cluster, cluster, sc.cluster);

  json global_flags = with_defaults(Section::flags, doc.value("flags", json::object()), version);
  normalise_integers(Section::flags, global_flags, version);
  bind_fields(Section::flags, global_flags, sc.flags);
  check_window_flags(sc.flags, "flags", err);

  json costs = with_defaults(Section::costs, doc.value("costs", json::object()), version);
  bind_fields(Section::costs, costs, sc.costs);

  // The exchange-only form.
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
  std::vector<Standalone> standalone(exchanges.size());
  json settings_exchanges = json::array();
  for (size_t i = 0; i < exchanges.size(); ++i) {
    const std::string xp = fmt::format("exchanges[{}]", i);
    json x = with_defaults(Section::exchange, exchanges[i], version);
    normalise_integers(Section::exchange, x, version);
    Standalone& s = standalone[i];
    ExchangeSpec& e = s.spec;
    json eff_flags;
    read_exchange(x, xp, global_flags, version, e, eff_flags, err);
    bind_fields(Section::exchange, x, s.ends);
    e.index = static_cast<int>(i);
    if (sc.query_order == QueryOrder::sequential && e.query.empty())
      err.add(xp + ".query", "expected a query name: query_order is \"sequential\"");
    // The placement's zeros: every executor, max(1, mt_dop) instances on each.
    const int per_exec_default = std::max(1, e.flags.mt_dop);
    for (auto [key, val] : {std::pair<const char*, int*>{"sender_executors", &e.sender_executors},
                            std::pair<const char*, int*>{"receiver_executors", &e.receiver_executors}}) {
      if (*val > sc.cluster.executors)
        err.add(xp + "." + key,
                fmt::format("expected at most cluster.executors = {}, got {}", sc.cluster.executors, *val));
      if (*val == 0) *val = sc.cluster.executors;
    }
    for (auto [key, first, count] :
         {std::tuple<const char*, int, int>{"sender_first_executor", e.sender_first_executor, e.sender_executors},
          std::tuple<const char*, int, int>{"receiver_first_executor", e.receiver_first_executor,
                                            e.receiver_executors}})
      if (first + count > sc.cluster.executors)
        err.add(
            xp + "." + key,
            fmt::format("expected at most {} (cluster.executors {} minus the {} executor(s) used), got {}",
                        std::max(0, sc.cluster.executors - count), sc.cluster.executors, count, first));
    if (e.sender_instances_per_executor == 0) e.sender_instances_per_executor = per_exec_default;
    if (e.receiver_instances_per_executor == 0) e.receiver_instances_per_executor = per_exec_default;
    check_receiver_counts(x, xp, e, err);
    configure_sender(e);
    const int receivers = e.receivers();
    per_receiver(x, "receiver_consumer_slowdown", xp, receivers, s.ends.receiver_consumer_slowdown, err);
    // Ids of exchanges, resolved to indices once every exchange is known.
    s.after = x.at("after").get<std::vector<std::string>>();
    for (size_t a = 0; a < s.after.size(); ++a) {
      auto it = index_of.find(s.after[a]);
      if (it == index_of.end())
        err.add(fmt::format("{}.after[{}]", xp, a), fmt::format("no exchange has id \"{}\"", s.after[a]));
      else if (it->second == static_cast<int>(i))
        err.add(fmt::format("{}.after[{}]", xp, a), "an exchange cannot wait for itself");
      else if (exchanges[static_cast<size_t>(it->second)].value("query", std::string()) != e.query)
        err.add(fmt::format("{}.after[{}]", xp, a),
                fmt::format("\"{}\" belongs to another query; `after` orders exchanges of one query (queries run "
                            "together, or one after another with query_order \"sequential\")",
                            s.after[a]));
    }
    const json& faults = x.at("faults");
    for (size_t f = 0; f < faults.size(); ++f) {
      const json& fj = faults[f];
      const std::string fp = fmt::format("{}.faults[{}]", xp, f);
      FaultSpec fs;
      bind_fields(Section::fault, fj, fs);
      const std::string kind = fj.at("kind").get<std::string>();
      // Which indices a kind takes, and their bounds, depend on the kind and the exchange.
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
        if (!wants_receiver)
          err.add(fp + ".receiver", fmt::format("not used by a {} fault; remove it", kind));
        if (fs.receiver >= receivers)
          err.add(fp + ".receiver",
                  fmt::format("expected a receiver index below {}, got {}", receivers, fs.receiver));
      } else if (wants_receiver) {
        err.add(fp + ".receiver", fmt::format("required for a {} fault; expected an integer >= 0", kind));
      }
      e.faults.push_back(fs);
    }
    x["flags"] = eff_flags;
    x["rpcs_in_flight_per_channel_effective"] = e.sender.k;
    x["sender_executors"] = e.sender_executors;
    x["receiver_executors"] = e.receiver_executors;
    x["sender_instances_per_executor"] = e.sender_instances_per_executor;
    x["receiver_instances_per_executor"] = e.receiver_instances_per_executor;
    x["directed_fanout"] = e.directed_fanout;
    x["receiver_weights"] = e.receiver_weights;
    settings_exchanges.push_back(x);
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
  // Group them by query, in order of first appearance.
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
  // Schema 1's formula for the time outside the exchanges is gone: that time is simulated.
  if (version == 1)
    for (const std::string& key : outside_formula_keys(doc))
      err.add(key, outside_formula_removed(key));
  err.throw_if_any();

  // Whole queries.
  json query_settings = json::array();
  int exchange_index = static_cast<int>(exchanges.size());
  std::set<std::string> names;
  for (const auto& [name, g] : group_of)
    names.insert(name);
  for (size_t i = 0; i < queries_json.size(); ++i) {
    const std::string qp = fmt::format("queries[{}]", i);
    const json qj = with_defaults(Section::query, queries_json[i], version);
    QuerySpec q;
    bind_fields(Section::query, qj, q);
    if (q.name.empty())
      err.add(qp + ".name", "expected a non-empty string");
    else if (!names.insert(q.name).second)
      err.add(qp + ".name", fmt::format("duplicate query name \"{}\"", q.name));
    q.startup_s = sc.costs.query_startup_s;
    if (qj.contains("expected") && !qj.at("expected").empty()) q.expected_json = qj.at("expected").dump();
    const bool parallel = sc.flags.mt_dop > 0 && qj.contains("parallel") && !qj.at("parallel").is_null();
    const json& plan = parallel ? qj.at("parallel") : qj;
    json settings;
    parse_plan(plan, parallel ? qp + ".parallel" : qp, q, defaults, global_flags, sc.cluster, sc.flags.mt_dop, version,
               exchange_index, settings, err);
    // The plan this mt_dop does not select is checked too, or its errors would wait for the sweep
    // point that selects it: `fragments` as it runs at mt_dop 0; `parallel` at mt_dop 1, without
    // what depends on the instance counts of an mt_dop not known here.
    if (qj.contains("parallel") && !qj.at("parallel").is_null()) {
      QuerySpec other;
      other.name = q.name;
      int other_index = exchange_index;
      json other_settings;
      parse_plan(parallel ? qj : qj.at("parallel"), parallel ? qp : qp + ".parallel", other, defaults, global_flags,
                 sc.cluster, parallel ? 0 : 1, version, other_index, other_settings, err, parallel);
    }
    settings["name"] = q.name;
    query_settings.push_back(settings);
    sc.queries.push_back(std::move(q));
  }
  err.throw_if_any();
  check_channel_count(sc, group_of.size(), err);
  err.throw_if_any();

  sc.settings = {{"schema_version", version},
                 {"seed", sc.seed},
                 {"query_order", sc.query_order == QueryOrder::sequential ? "sequential" : "concurrent"},
                 {"cluster", cluster},
                 {"flags", global_flags},
                 {"exchanges", settings_exchanges}};
  if (version >= 2) {
    sc.settings["costs"] = costs;
    sc.settings["queries"] = query_settings;
  }
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
