#include "input/query_form.hpp"

#include "input/exchange_keys.hpp"
#include "input/parameters.hpp"
#include "input/plan_ops.hpp"
#include "models/query/plan.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <vector>

namespace exsim {

using nlohmann::json;

namespace {

// The plan's exchanges, read first (the operators refer to them): ids indexed in `qp`, specs in
// q.exchanges numbered from `exchange_index` on. Returns each exchange's keys with the defaults
// of exchange_defaults merged in, for the checks that need the instance counts.
std::vector<json> read_plan_exchanges(const json& plan, const std::string& plan_path, QuerySpec& q,
                                      QueryParse& qp, const json& defaults, const GlobalFlags& global_flags,
                                      int version, int& exchange_index, Errors& err) {
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
    ExchangeSpec& e = q.exchanges[i];
    read_exchange(x, xp, global_flags, version, e, err);
    e.query = q.name;
    e.index = exchange_index++;
  }
  return filled;
}

// The plan's fragments: ids, sinks, and operator trees. Returns, per fragment, the join it builds
// ("" if none).
std::vector<std::string> read_fragments(const json& plan, const std::string& plan_path, QuerySpec& q, QueryParse& qp,
                                        int version, Errors& err) {
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
  return sink_join;
}

// Every exchange has one sending and one receiving fragment; the plan has one result.
void check_ends(const std::string& plan_path, const QuerySpec& q, const QueryParse& qp, Errors& err) {
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
}

// Joins built by another fragment, and the fragments that build them, name each other.
void resolve_builds(QuerySpec& q, const QueryParse& qp, const std::vector<std::string>& sink_join, Errors& err) {
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
}

// Runtime filters name the join producing them, in any fragment of the plan.
void resolve_filters(QuerySpec& q, const QueryParse& qp, Errors& err) {
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
}

// A fragment whose sink builds a join is that join's build.
void check_join_build_sinks(const QuerySpec& q, const QueryParse& qp, const std::vector<std::string>& sink_join,
                            Errors& err) {
  for (size_t i = 0; i < q.fragments.size(); ++i)
    if (q.fragments[i].sink == SinkKind::join_build && q.fragments[i].sink_join_fragment < 0)
      err.add(qp.fragment_paths[i] + ".sink.join_build",
              fmt::format("no join of this plan has its build in this fragment (expected a join with id \"{}\" "
                          "whose build is {{\"fragment\": \"{}\"}})",
                          sink_join[i], q.fragments[i].id));
}

// Placement, then checks that need the instance counts (`counts`), then each sender's configuration.
void place_plan(const std::string& plan_path, QuerySpec& q, const QueryParse& qp, const std::vector<json>& filled,
                const ClusterSpec& cluster, int mt_dop, bool counts, Errors& err) {
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
}

// `counts`: check what depends on the instance counts (weights per instance, the DIRECTED fanout);
// false for a plan checked at an mt_dop it may not run at.
void parse_plan(const json& plan, const std::string& plan_path, QuerySpec& q, const json& defaults,
                const GlobalFlags& global_flags, const ClusterSpec& cluster, int mt_dop, int version,
                int& exchange_index, Errors& err, bool counts = true) {
  QueryParse qp;
  qp.path = plan_path;
  const std::vector<json> filled =
      read_plan_exchanges(plan, plan_path, q, qp, defaults, global_flags, version, exchange_index, err);
  qp.leaf_uses.assign(q.exchanges.size(), 0);
  qp.sink_uses.assign(q.exchanges.size(), 0);
  const std::vector<std::string> sink_join = read_fragments(plan, plan_path, q, qp, version, err);
  err.throw_if_any();
  check_ends(plan_path, q, qp, err);
  resolve_builds(q, qp, sink_join, err);
  resolve_filters(q, qp, err);
  check_join_build_sinks(q, qp, sink_join, err);
  err.throw_if_any();
  place_plan(plan_path, q, qp, filled, cluster, mt_dop, counts, err);
}

// A query's own values of a section (its flags, its costs): `own` bound over the scenario's `base`.
template <class T> T own_over(Section section, const T& base, const json& own) {
  T out = base;
  bind_given(section, own, out);
  return out;
}

} // namespace

void read_queries(const json& queries_json, const json& defaults, int version, int first_exchange_index,
                  std::set<std::string> names, Scenario& sc, Errors& err) {
  int exchange_index = first_exchange_index;
  const GlobalFlags global_flags{sc.flags, sc.settings_inputs.flags};
  for (size_t i = 0; i < queries_json.size(); ++i) {
    const std::string qp = fmt::format("queries[{}]", i);
    const json qj = with_defaults(Section::query, queries_json[i], version);
    QuerySpec q;
    bind_fields(Section::query, qj, q);
    if (q.name.empty())
      err.add(qp + ".name", "expected a non-empty string");
    else if (!names.insert(q.name).second)
      err.add(qp + ".name", fmt::format("duplicate query name \"{}\"", q.name));
    if (qj.contains("expected") && !qj.at("expected").empty()) q.expected_json = qj.at("expected").dump();
    // The query's own flags (its query options) and costs over the scenario's; its exchanges' own
    // flags over both.
    const json& own_flags = qj.at("flags");
    const json& own_costs = qj.at("costs");
    for (const auto& [k, v] : own_flags.items())
      if (find_param(Section::flags, k, version)->daemon_wide)
        err.add(qp + ".flags." + k, "a daemon-wide setting (the pools are shared by every query on a daemon): set "
                                    "it in the top-level flags");
    const Flags flags = own_over(Section::flags, sc.flags, own_flags);
    const OperatorCosts costs = own_over(Section::costs, sc.costs, own_costs);
    GivenKeys given = global_flags.given;
    given.add(given_keys(Section::flags, own_flags, version));
    if (!own_flags.empty()) {
      check_window_flags(flags, qp + ".flags", err);
      q.flags = flags;
    }
    if (!own_costs.empty()) q.costs = costs;
    q.startup_s = costs.query_startup_s;
    const GlobalFlags query_flags{flags, given};
    const int mt_dop = flags.mt_dop;
    const bool parallel = mt_dop > 0 && qj.contains("parallel") && !qj.at("parallel").is_null();
    const json& plan = parallel ? qj.at("parallel") : qj;
    parse_plan(plan, parallel ? qp + ".parallel" : qp, q, defaults, query_flags, sc.cluster, mt_dop, version,
               exchange_index, err);
    // The plan this mt_dop does not select is checked too, or its errors would wait for the sweep
    // point that selects it: `fragments` as it runs at mt_dop 0; `parallel` at mt_dop 1, without
    // what depends on the instance counts of an mt_dop not known here.
    if (qj.contains("parallel") && !qj.at("parallel").is_null()) {
      QuerySpec other;
      other.name = q.name;
      int other_index = exchange_index;
      parse_plan(parallel ? qj : qj.at("parallel"), parallel ? qp : qp + ".parallel", other, defaults, query_flags,
                 sc.cluster, parallel ? 0 : 1, version, other_index, err, parallel);
    }
    sc.settings_inputs.queries.push_back({.parallel = parallel,
                                          .flags = given_keys(Section::flags, own_flags, version),
                                          .costs = given_keys(Section::costs, own_costs, version)});
    sc.queries.push_back(std::move(q));
  }
}

} // namespace exsim
