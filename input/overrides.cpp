#include "input/overrides.hpp"

#include "input/check.hpp"
#include "input/json_input.hpp"
#include "input/parameters.hpp"
#include "input/remote_scan.hpp"
#include "input/suggest.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <string>
#include <vector>

namespace exsim {

using nlohmann::json;

namespace {

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
    if (key == "flags" && s == Section::query) return {K::object, Section::flags};
    if (key == "costs" && s == Section::query) return {K::object, Section::costs};
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
  // A flag or a cost set on the command line is a what-if for the whole run: the queries that set
  // it themselves (their query options, their measured costs) take it too. An exchange's own flags
  // still win.
  if (tokens.size() == 2 && !tokens[0].is_index && (tokens[0].key == "flags" || tokens[0].key == "costs") &&
      doc.contains("queries") && doc["queries"].is_array())
    for (json& q : doc["queries"])
      if (q.is_object() && q.contains(tokens[0].key) && q[tokens[0].key].is_object() &&
          q[tokens[0].key].contains(tokens[1].key))
        q[tokens[0].key][tokens[1].key] = value;
  return walked;
}

} // namespace exsim
