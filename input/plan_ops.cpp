#include "input/plan_ops.hpp"

#include "input/parameters.hpp"
#include "models/query/plan.hpp"

#include <fmt/format.h>

#include <map>
#include <set>
#include <string>

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

} // namespace

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

} // namespace exsim
