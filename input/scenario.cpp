#include "input/scenario.hpp"

#include "input/parameters.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <functional>
#include <map>
#include <set>
#include <sstream>
#include <tuple>

namespace exsim {

using nlohmann::json;

namespace {

// Collects every error of one phase so that a user sees them all at once.
class Errors {
public:
  explicit Errors(std::string file) : file_(std::move(file)) {}
  void add(const std::string& path, const std::string& what) {
    lines_.push_back(fmt::format("{}: {}: {}", file_, path.empty() ? "(top level)" : path, what));
  }
  void throw_if_any() const {
    if (lines_.empty()) return;
    std::string msg;
    for (const auto& l : lines_)
      msg += (msg.empty() ? "" : "\n") + l;
    throw InputError(msg);
  }
  const std::string& file() const { return file_; }

private:
  std::string file_;
  std::vector<std::string> lines_;
};

std::string join_path(const std::string& base, const std::string& key) {
  return base.empty() ? key : base + "." + key;
}

std::string show(const json& v) {
  std::string s = v.dump();
  return s.size() > 60 ? s.substr(0, 57) + "..." : s;
}

const char* json_kind(const json& v) {
  switch (v.type()) {
  case json::value_t::null:
    return "null";
  case json::value_t::boolean:
    return "a boolean";
  case json::value_t::number_integer:
  case json::value_t::number_unsigned:
    return "an integer";
  case json::value_t::number_float:
    return "a number";
  case json::value_t::string:
    return "a string";
  case json::value_t::array:
    return "an array";
  case json::value_t::object:
    return "an object";
  default:
    return "a value";
  }
}

bool is_integral(const json& v) {
  if (v.is_number_integer()) return true;
  if (!v.is_number_float()) return false;
  const double d = v.get<double>();
  return std::isfinite(d) && d == std::floor(d) && std::fabs(d) < 9.0e15;
}

bool in_range(const ParamSpec& p, double d) {
  if (p.min && (p.min_exclusive ? !(d > *p.min) : !(d >= *p.min))) return false;
  if (p.max && !(d <= *p.max)) return false;
  return true;
}

void check_value(const ParamSpec& p, const json& v, const std::string& path, Errors& err) {
  const std::string expected = "expected " + describe_expectation(p);
  auto bad = [&] { err.add(path, fmt::format("{}, got {}", expected, show(v))); };
  switch (p.type) {
  case ParamType::integer:
    if (!is_integral(v) || !in_range(p, v.get<double>())) bad();
    break;
  case ParamType::number:
    if (!v.is_number() || !std::isfinite(v.get<double>()) || !in_range(p, v.get<double>())) bad();
    break;
  case ParamType::boolean:
    if (!v.is_boolean()) bad();
    break;
  case ParamType::string:
    if (!v.is_string()) bad();
    break;
  case ParamType::enumeration:
    if (!v.is_string() ||
        std::find(p.choices.begin(), p.choices.end(), v.get<std::string>()) == p.choices.end())
      bad();
    break;
  case ParamType::object:
    if (!v.is_object()) bad();
    break;
  case ParamType::number_array:
    if (!v.is_array()) {
      bad();
      break;
    }
    for (size_t i = 0; i < v.size(); ++i)
      if (!v[i].is_number() || !in_range(p, v[i].get<double>()))
        err.add(fmt::format("{}[{}]", path, i), fmt::format("{}, got {}", expected, show(v[i])));
    break;
  case ParamType::string_array:
    if (!v.is_array()) {
      bad();
      break;
    }
    for (size_t i = 0; i < v.size(); ++i)
      if (!v[i].is_string())
        err.add(fmt::format("{}[{}]", path, i), fmt::format("expected a string, got {}", show(v[i])));
    break;
  case ParamType::array:
    if (!v.is_array() || (p.min && v.size() < static_cast<size_t>(*p.min))) bad();
    break;
  }
}

std::string known_keys(Section s, const std::set<std::string>& excluded = {}) {
  std::string out;
  for (const ParamSpec* p : params_of(s))
    if (!excluded.count(p->name)) out += (out.empty() ? "" : ", ") + p->name;
  return out;
}

// Checks an object's keys and values against a section of the table. Nested objects and arrays
// (cluster, flags, exchanges, faults) are checked by the caller.
void check_object(Section s, const json& obj, const std::string& path, Errors& err,
                  const std::set<std::string>& excluded = {}, bool enforce_required = true) {
  if (!obj.is_object()) {
    err.add(path, fmt::format("expected an object, got {}", json_kind(obj)));
    return;
  }
  for (const auto& [key, value] : obj.items()) {
    const ParamSpec* p = find_param(s, key);
    if (!p || excluded.count(key)) {
      err.add(join_path(path, key), fmt::format("unknown key; expected one of: {}", known_keys(s, excluded)));
      continue;
    }
    check_value(*p, value, join_path(path, key), err);
  }
  if (enforce_required)
    for (const ParamSpec* p : params_of(s))
      if (p->required && !excluded.count(p->name) && !obj.contains(p->name))
        err.add(join_path(path, p->name), "required key is missing; expected " + describe_expectation(*p));
}

// Fills the table's defaults into an object (keys with a null default are left absent).
json with_defaults(Section s, json obj) {
  for (const ParamSpec* p : params_of(s))
    if (!obj.contains(p->name) && !p->default_value.is_null()) obj[p->name] = p->default_value;
  return obj;
}

Flags flags_from(const json& f) {
  Flags out;
  out.data_stream_sender_buffer_size = f.at("data_stream_sender_buffer_size").get<int64_t>();
  out.exchg_node_buffer_size_bytes = f.at("exchg_node_buffer_size_bytes").get<int64_t>();
  out.batch_size = f.at("batch_size").get<int64_t>();
  out.mt_dop = f.at("mt_dop").get<int>();
  out.rpcs_in_flight_per_channel = f.at("rpcs_in_flight_per_channel").get<int>();
  out.compression = f.at("compression").get<bool>();
  out.eos_flush = f.at("eos_flush").get<std::string>() == "serial" ? EosFlush::serial : EosFlush::pipelined;
  out.datastream_service_num_svc_threads = f.at("datastream_service_num_svc_threads").get<int>();
  out.datastream_service_num_deserialization_threads =
      f.at("datastream_service_num_deserialization_threads").get<int>();
  return out;
}

// Integral JSON numbers written as floats (2e6) are stored as integers from here on.
void normalise_integers(Section s, json& obj) {
  for (const ParamSpec* p : params_of(s))
    if (p->type == ParamType::integer && obj.contains(p->name) && obj[p->name].is_number_float())
      obj[p->name] = static_cast<int64_t>(obj[p->name].get<double>());
}

// --- --set overrides -------------------------------------------------------------------

struct PathToken {
  bool is_index;
  std::string key;
  size_t index;
};

std::vector<PathToken> parse_json_path(const std::string& path) {
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
        throw InputError(fmt::format("--set {}: unclosed '[' in JSON path", path));
      const std::string num = path.substr(i + 1, close - i - 1);
      if (num.empty() || num.find_first_not_of("0123456789") != std::string::npos)
        throw InputError(fmt::format("--set {}: expected an array index in [], got \"{}\"", path, num));
      tokens.push_back({true, "", static_cast<size_t>(std::stoull(num))});
      i = close + 1;
      continue;
    }
    const size_t end = path.find_first_of(".[", i);
    tokens.push_back({false, path.substr(i, end == std::string::npos ? std::string::npos : end - i), 0});
    i = end == std::string::npos ? path.size() : end;
  }
  if (tokens.empty()) throw InputError("--set: empty NAME");
  return tokens;
}

void apply_override(json& doc, const Override& o) {
  std::string path = o.first;
  if (find_param(Section::flags, path)) path = "flags." + path;
  json value;
  try {
    value = json::parse(o.second);
  } catch (const json::parse_error&) {
    value = o.second; // a bare word is a string: --set eos_flush=serial
  }
  json* node = &doc;
  std::string walked;
  const auto tokens = parse_json_path(path);
  for (size_t t = 0; t < tokens.size(); ++t) {
    const PathToken& tok = tokens[t];
    if (tok.is_index) {
      walked += fmt::format("[{}]", tok.index);
      if (!node->is_array() || tok.index >= node->size())
        throw InputError(fmt::format("--set {}: {} does not exist in the scenario", o.first, walked));
      node = &(*node)[tok.index];
    } else {
      walked = join_path(walked, tok.key);
      if (node->is_null()) *node = json::object();
      if (!node->is_object())
        throw InputError(fmt::format("--set {}: {} is not inside an object", o.first, walked));
      node = &(*node)[tok.key];
    }
  }
  *node = value;
}

// --- meaning ---------------------------------------------------------------------------

void check_after_cycles(const std::vector<ExchangeSpec>& xs, Errors& err) {
  std::vector<int> state(xs.size(), 0); // 0 new, 1 on stack, 2 done
  std::function<bool(int)> visit = [&](int i) {
    if (state[i] == 1) return true;
    if (state[i] == 2) return false;
    state[i] = 1;
    for (int j : xs[i].after)
      if (visit(j)) return true;
    state[i] = 2;
    return false;
  };
  for (size_t i = 0; i < xs.size(); ++i)
    if (state[i] == 0 && visit(static_cast<int>(i))) {
      err.add(fmt::format("exchanges[{}].after", i), "the `after` references form a cycle");
      return;
    }
}

} // namespace

Override parse_override(const std::string& arg) {
  const size_t eq = arg.find('=');
  if (eq == std::string::npos || eq == 0) throw InputError(fmt::format("--set {}: expected NAME=VALUE", arg));
  return {arg.substr(0, eq), arg.substr(eq + 1)};
}

Scenario load_scenario(const std::string& path, const std::vector<Override>& overrides) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError(fmt::format("{}: cannot open the scenario file", path));
  std::stringstream buf;
  buf << in.rdbuf();
  const std::string text = buf.str();
  json doc;
  try {
    doc = json::parse(text);
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
    throw InputError(fmt::format("{}: not valid JSON (line {}, column {}): {}", path, line, col, e.what()));
  }
  return build_scenario(std::move(doc), path, overrides);
}

Scenario build_scenario(json doc, const std::string& file, const std::vector<Override>& overrides) {
  for (const auto& o : overrides)
    apply_override(doc, o);

  // Phase 1: structure, against the parameter table.
  Errors err(file);
  check_object(Section::scenario, doc, "", err);
  err.throw_if_any();
  if (doc.contains("cluster")) check_object(Section::cluster, doc["cluster"], "cluster", err);
  if (doc.contains("queries"))
    for (const auto& [name, q] : doc["queries"].items())
      check_object(Section::query, q, "queries." + name, err);
  if (doc.contains("flags")) check_object(Section::flags, doc["flags"], "flags", err);
  if (doc.contains("exchange_defaults")) {
    const json& d = doc["exchange_defaults"];
    check_object(Section::exchange, d, "exchange_defaults", err, {"id", "faults"}, false);
    if (d.is_object() && d.contains("flags"))
      check_object(Section::flags, d["flags"], "exchange_defaults.flags", err);
  }
  err.throw_if_any();
  const json defaults = doc.value("exchange_defaults", json::object());
  json exchanges = doc["exchanges"];
  for (size_t i = 0; i < exchanges.size(); ++i) {
    json& x = exchanges[i];
    const std::string xp = fmt::format("exchanges[{}]", i);
    if (!x.is_object()) {
      err.add(xp, fmt::format("expected an object, got {}", json_kind(x)));
      continue;
    }
    for (const auto& [key, value] : defaults.items()) {
      if (key == "flags" && x.contains("flags") && x["flags"].is_object()) {
        for (const auto& [fk, fv] : value.items())
          if (!x["flags"].contains(fk)) x["flags"][fk] = fv;
      } else if (!x.contains(key)) {
        x[key] = value;
      }
    }
    check_object(Section::exchange, x, xp, err);
    if (x.contains("flags")) check_object(Section::flags, x["flags"], xp + ".flags", err);
    if (x.contains("faults") && x["faults"].is_array())
      for (size_t f = 0; f < x["faults"].size(); ++f)
        check_object(Section::fault, x["faults"][f], fmt::format("{}.faults[{}]", xp, f), err);
  }
  err.throw_if_any();

  // Defaults, then phase 2: meaning.
  Scenario sc;
  sc.file = file;
  {
    std::string stem = file;
    const size_t slash = stem.find_last_of('/');
    if (slash != std::string::npos) stem = stem.substr(slash + 1);
    if (stem.size() > 5 && stem.compare(stem.size() - 5, 5, ".json") == 0) stem.resize(stem.size() - 5);
    sc.name = doc.contains("name") ? doc["name"].get<std::string>() : stem;
  }
  sc.description = doc.value("description", std::string());
  sc.query_order = doc.value("query_order", std::string("concurrent")) == "sequential"
                       ? QueryOrder::sequential
                       : QueryOrder::concurrent;
  sc.seed = doc.contains("seed") ? static_cast<uint64_t>(doc["seed"].get<double>()) : 1;
  sc.query_overhead_s = doc.value("query_overhead_s", 0.0);
  sc.query_work_ns_per_row = doc.value("query_work_ns_per_row", 0.0);
  sc.query_scanner_threads = static_cast<int>(doc.value("query_scanner_threads", 0.0));

  json cluster = with_defaults(Section::cluster, doc.value("cluster", json::object()));
  normalise_integers(Section::cluster, cluster);
  sc.cluster.executors = cluster.at("executors").get<int>();
  sc.cluster.cores_per_executor = cluster.at("cores_per_executor").get<int>();
  sc.cluster.nic_bandwidth_gbps = cluster.at("nic_bandwidth_gbps").get<double>();
  sc.cluster.rtt_us = cluster.at("rtt_us").get<double>();
  sc.cluster.loopback_rtt_us = cluster.at("loopback_rtt_us").get<double>();
  sc.cluster.loopback_bandwidth_gbps = cluster.at("loopback_bandwidth_gbps").get<double>();
  sc.cluster.network_model = cluster.at("network_model").get<std::string>() == "simgrid"
                                 ? NetworkModel::simgrid
                                 : NetworkModel::exsim;

  json global_flags = with_defaults(Section::flags, doc.value("flags", json::object()));
  normalise_integers(Section::flags, global_flags);
  sc.flags = flags_from(global_flags);

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

  json settings_exchanges = json::array();
  for (size_t i = 0; i < exchanges.size(); ++i) {
    const std::string xp = fmt::format("exchanges[{}]", i);
    json x = with_defaults(Section::exchange, exchanges[i]);
    normalise_integers(Section::exchange, x);
    ExchangeSpec e;
    e.index = static_cast<int>(i);
    e.id = x.at("id").get<std::string>();
    e.query = x.at("query").get<std::string>();
    if (sc.query_order == QueryOrder::sequential && e.query.empty())
      err.add(xp + ".query", "expected a query name: query_order is \"sequential\"");
    parse_partitioning(x.at("partitioning").get<std::string>(), e.partitioning);
    e.merging = x.at("merging").get<bool>();

    json xflags = x.at("flags");
    const bool k_explicit = xflags.contains("rpcs_in_flight_per_channel");
    json eff_flags = global_flags;
    for (const auto& [k, v] : xflags.items())
      eff_flags[k] = v;
    normalise_integers(Section::flags, eff_flags);
    e.flags = flags_from(eff_flags);
    e.k = k_explicit || uses_configured_k(e.partitioning, e.merging) ? e.flags.rpcs_in_flight_per_channel : 1;
    if (e.merging && e.k > 1)
      err.add(xp + ".flags.rpcs_in_flight_per_channel",
              fmt::format("a merging exchange keeps K=1 (batches of one sender must arrive in order); got {}",
                          e.k));

    const int per_exec_default = std::max(1, e.flags.mt_dop);
    e.sender_executors = x.at("sender_executors").get<int>();
    e.receiver_executors = x.at("receiver_executors").get<int>();
    for (auto [key, val] : {std::pair<const char*, int*>{"sender_executors", &e.sender_executors},
                            std::pair<const char*, int*>{"receiver_executors", &e.receiver_executors}}) {
      if (*val > sc.cluster.executors)
        err.add(xp + "." + key,
                fmt::format("expected at most cluster.executors = {}, got {}", sc.cluster.executors, *val));
      if (*val == 0) *val = sc.cluster.executors;
    }
    e.sender_first_executor = x.at("sender_first_executor").get<int>();
    e.receiver_first_executor = x.at("receiver_first_executor").get<int>();
    for (auto [key, first, count] :
         {std::tuple<const char*, int, int>{"sender_first_executor", e.sender_first_executor,
                                            e.sender_executors},
          std::tuple<const char*, int, int>{"receiver_first_executor", e.receiver_first_executor,
                                            e.receiver_executors}})
      if (first + count > sc.cluster.executors)
        err.add(
            xp + "." + key,
            fmt::format("expected at most {} (cluster.executors {} minus the {} executor(s) used), got {}",
                        std::max(0, sc.cluster.executors - count), sc.cluster.executors, count, first));
    e.sender_instances_per_executor = x.at("sender_instances_per_executor").get<int>();
    e.receiver_instances_per_executor = x.at("receiver_instances_per_executor").get<int>();
    if (e.sender_instances_per_executor == 0) e.sender_instances_per_executor = per_exec_default;
    if (e.receiver_instances_per_executor == 0) e.receiver_instances_per_executor = per_exec_default;

    e.rows_total = x.at("rows_total").get<int64_t>();
    e.shape.fixed_row_bytes = x.at("fixed_row_bytes").get<int64_t>();
    e.shape.var_row_bytes = x.at("var_row_bytes").get<int64_t>();
    e.shape.tuples_per_row = x.at("tuples_per_row").get<int64_t>();
    e.shape.compression_ratio = x.at("compression_ratio").get<double>();
    const int receivers = e.receivers();
    for (auto [key, vec] :
         {std::pair<const char*, std::vector<double>*>{"receiver_weights", &e.receiver_weights},
          std::pair<const char*, std::vector<double>*>{"receiver_consumer_slowdown",
                                                       &e.receiver_consumer_slowdown}}) {
      if (x.contains(key)) {
        *vec = x.at(key).get<std::vector<double>>();
        if (static_cast<int>(vec->size()) != receivers)
          err.add(xp + "." + key, fmt::format("expected one number per receiver instance ({}), got {}",
                                              receivers, vec->size()));
      } else {
        vec->assign(static_cast<size_t>(receivers), 1.0);
        x[key] = *vec;
      }
    }
    e.directed_fanout = e.partitioning == Partitioning::directed ? x.at("directed_fanout").get<int>() : 1;
    if (e.directed_fanout > receivers)
      err.add(xp + ".directed_fanout",
              fmt::format("expected at most the number of receiver instances ({}), got {}", receivers,
                          e.directed_fanout));
    e.costs.producer_ns_per_row = x.at("producer_ns_per_row").get<double>();
    e.costs.hash_ns_per_row = x.at("hash_ns_per_row").get<double>();
    e.costs.copy_ns_per_row = x.at("copy_ns_per_row").get<double>();
    e.costs.compress_ns_per_byte = x.at("compress_ns_per_byte").get<double>();
    e.costs.serialize_ns_per_byte = x.at("serialize_ns_per_byte").get<double>();
    e.costs.deserialize_ns_per_byte = x.at("deserialize_ns_per_byte").get<double>();
    e.costs.consumer_ns_per_row = x.at("consumer_ns_per_row").get<double>();
    e.start_s = x.at("start_s").get<double>();
    const auto after = x.at("after").get<std::vector<std::string>>();
    for (size_t a = 0; a < after.size(); ++a) {
      auto it = index_of.find(after[a]);
      if (it == index_of.end())
        err.add(fmt::format("{}.after[{}]", xp, a), fmt::format("no exchange has id \"{}\"", after[a]));
      else if (it->second == static_cast<int>(i))
        err.add(fmt::format("{}.after[{}]", xp, a), "an exchange cannot wait for itself");
      else if (sc.query_order == QueryOrder::sequential &&
               exchanges[static_cast<size_t>(it->second)].value("query", std::string()) != e.query)
        err.add(fmt::format("{}.after[{}]", xp, a),
                fmt::format(
                    "\"{}\" belongs to another query; with query_order \"sequential\" queries already run "
                    "one after another",
                    after[a]));
      else
        e.after.push_back(it->second);
    }
    const json& faults = x.at("faults");
    for (size_t f = 0; f < faults.size(); ++f) {
      const json& fj = faults[f];
      const std::string fp = fmt::format("{}.faults[{}]", xp, f);
      FaultSpec fs;
      const std::string kind = fj.at("kind").get<std::string>();
      fs.kind = kind == "receiver_close" ? FaultKind::receiver_close
                : kind == "rpc_error"    ? FaultKind::rpc_error
                                         : FaultKind::cancel;
      fs.at_s = fj.at("at_s").get<double>();
      const bool wants_sender = fs.kind == FaultKind::rpc_error;
      const bool wants_receiver = fs.kind != FaultKind::cancel;
      if (fj.contains("sender")) {
        if (!wants_sender) err.add(fp + ".sender", fmt::format("not used by a {} fault; remove it", kind));
        fs.sender = fj["sender"].get<int>();
        if (fs.sender >= e.senders())
          err.add(fp + ".sender",
                  fmt::format("expected a sender index below {}, got {}", e.senders(), fs.sender));
      } else if (wants_sender) {
        err.add(fp + ".sender", fmt::format("required for a {} fault; expected an integer >= 0", kind));
      }
      if (fj.contains("receiver")) {
        if (!wants_receiver)
          err.add(fp + ".receiver", fmt::format("not used by a {} fault; remove it", kind));
        fs.receiver = fj["receiver"].get<int>();
        if (fs.receiver >= receivers)
          err.add(fp + ".receiver",
                  fmt::format("expected a receiver index below {}, got {}", receivers, fs.receiver));
      } else if (wants_receiver) {
        err.add(fp + ".receiver", fmt::format("required for a {} fault; expected an integer >= 0", kind));
      }
      e.faults.push_back(fs);
    }

    x["flags"] = eff_flags;
    x["rpcs_in_flight_per_channel_effective"] = e.k;
    x["sender_executors"] = e.sender_executors;
    x["receiver_executors"] = e.receiver_executors;
    x["sender_instances_per_executor"] = e.sender_instances_per_executor;
    x["receiver_instances_per_executor"] = e.receiver_instances_per_executor;
    x["directed_fanout"] = e.directed_fanout;
    settings_exchanges.push_back(x);
    sc.exchanges.push_back(std::move(e));
  }
  check_after_cycles(sc.exchanges, err);
  json queries_settings = json::object();
  if (doc.contains("queries")) {
    std::set<std::string> names;
    for (const ExchangeSpec& e : sc.exchanges)
      names.insert(e.query);
    for (const auto& [name, q] : doc["queries"].items()) {
      if (name.empty() || names.count(name) == 0) {
        err.add("queries." + name,
                "expected the name of a query that some exchange belongs to (its `query` key)");
        continue;
      }
      const json full = with_defaults(Section::query, q);
      sc.query_work_rows[name] = static_cast<int64_t>(full.at("work_rows").get<double>());
      sc.query_scan_rows[name] = static_cast<int64_t>(full.at("scan_rows").get<double>());
      queries_settings[name] = {{"work_rows", sc.query_work_rows[name]},
                                {"scan_rows", sc.query_scan_rows[name]}};
    }
  }
  err.throw_if_any();

  sc.settings = {{"seed", sc.seed},
                 {"query_order", sc.query_order == QueryOrder::sequential ? "sequential" : "concurrent"},
                 {"query_overhead_s", sc.query_overhead_s},
                 {"query_work_ns_per_row", sc.query_work_ns_per_row},
                 {"query_scanner_threads", sc.query_scanner_threads},
                 {"queries", queries_settings},
                 {"cluster", cluster},
                 {"flags", global_flags},
                 {"exchanges", settings_exchanges}};
  return sc;
}

double Scenario::query_extra_s(const std::string& query) const {
  auto rows = [&query](const std::map<std::string, int64_t>& m) {
    const auto it = m.find(query);
    return it == m.end() ? 0.0 : static_cast<double>(it->second);
  };
  // At mt_dop 0 a scan node decodes on its own scanner threads while the fragment thread runs the
  // operators; with mt_dop > 0 every instance does both on one thread.
  const int fragment_threads = std::max(1, flags.mt_dop);
  const int scan_threads = flags.mt_dop > 0            ? flags.mt_dop
                           : query_scanner_threads > 0 ? query_scanner_threads
                                                       : cluster.cores_per_executor;
  const double per_executor = rows(query_scan_rows) / scan_threads + rows(query_work_rows) / fragment_threads;
  return query_overhead_s + per_executor * query_work_ns_per_row * 1e-9 / cluster.executors;
}

} // namespace exsim
