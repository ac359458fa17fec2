#include "input/query_form.hpp"

#include "input/exchange_keys.hpp"
#include "input/parameters.hpp"
#include "models/query/plan.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <vector>

namespace exsim {

using nlohmann::json;

namespace {

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

// A scan's runtime filters: each names the join producing it (resolved once every operator is
// known) and the share of rows it keeps.
void read_runtime_filters(const json& node, const std::string& path, int fi, int index, OpSpec& me, QueryParse& qp,
                          Errors& err) {
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
}

// An `exchange` operator: the exchange of the plan it reads, whose receiving fragment it is.
void read_exchange_leaf(const std::string& id, const std::string& path, int fi, OpSpec& me, QueryParse& qp,
                        QuerySpec& q, Errors& err) {
  auto it = qp.exchange_index.find(id);
  if (it == qp.exchange_index.end()) {
    err.add(path + ".exchange", fmt::format("no exchange of this plan has id \"{}\"", id));
  } else {
    me.exchange = it->second;
    qp.leaf_uses[static_cast<size_t>(it->second)]++;
    q.exchanges[static_cast<size_t>(it->second)].receiver_fragment = fi;
  }
}

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
    read_runtime_filters(node, path, fi, index, me, qp, err);
    break;
  case OpKind::exchange:
    if (need("exchange") && node["exchange"].is_string())
      read_exchange_leaf(node["exchange"].get<std::string>(), path, fi, me, qp, q, err);
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
