// Remote-scan scenarios: structure against the parameter table, then meaning (see remote_scan.hpp).
#include "input/remote_scan.hpp"

#include "input/check.hpp"
#include "input/parameters.hpp"
#include "models/core/rng.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <memory>

namespace exsim {

using nlohmann::json;

namespace {

// The random stream of the split sizes, apart from the executors' streams (0, 1, ...).
constexpr uint64_t kSplitSizeStream = 0xB17E5;
// A data GET's p99 time to first byte at most this many times its median.
constexpr double kMaxTtfbSpread = 1000;
// The data of all splits, as splits.data_bytes_total allows.
constexpr int64_t kMaxDataBytes = 10'000'000'000'000'000;

const std::vector<std::pair<const char*, Section>>& nested_sections() {
  static const std::vector<std::pair<const char*, Section>> n = {{"cluster", Section::remote_scan_cluster},
                                                                 {"s3", Section::remote_scan_s3},
                                                                 {"splits", Section::remote_scan_splits},
                                                                 {"prefetch", Section::remote_scan_prefetch},
                                                                 {"scan", Section::remote_scan_scan}};
  return n;
}

// The quantile table of the time to first byte (s3.ttfb_distribution = quantiles): each element's
// range is checked against the table already; here the table as a whole, and that every kind's
// median leaves its draws non-negative.
void read_ttfb_quantiles(const json& s3, PrefetchConfig& p, Errors& err) {
  const json& levels = s3.at("ttfb_quantile_levels");
  const json& ms = s3.at("ttfb_quantiles_ms");
  if (!levels.is_array() || !ms.is_array()) return; // reported by the structure check
  if (levels.size() != ms.size() || levels.size() < 2) {
    err.add("s3.ttfb_quantiles_ms",
            fmt::format("expected one value per level of s3.ttfb_quantile_levels ({}), at least two, got {}",
                        levels.size(), ms.size()));
    return;
  }
  std::vector<double> q, x;
  for (size_t i = 0; i < levels.size(); ++i) {
    if (!levels[i].is_number() || !ms[i].is_number()) return;
    q.push_back(levels[i].get<double>());
    x.push_back(ms[i].get<double>());
  }
  bool bad = false;
  for (size_t i = 0; i < q.size(); ++i) {
    if (q[i] >= 1 || (i > 0 && q[i] <= q[i - 1])) {
      bad = true;
      err.add(fmt::format("s3.ttfb_quantile_levels[{}]", i),
              fmt::format("expected increasing levels below 1, got {}", q[i]));
    }
    if (i > 0 && x[i] < x[i - 1]) {
      bad = true;
      err.add(fmt::format("s3.ttfb_quantiles_ms[{}]", i),
              fmt::format("expected at least the value before it ({}), got {}", x[i - 1], x[i]));
    }
  }
  if (!(q.front() <= 0.5 && q.back() >= 0.5)) {
    bad = true;
    err.add("s3.ttfb_quantile_levels", "expected the median (0.5) between the first and the last level");
  }
  if (bad) return;
  const QuantileTable table(q, x);
  for (const char* kind : {"data", "footer"}) {
    const std::string key = fmt::format("{}_ttfb_p50_ms", kind);
    const double least = table.median() - table.min();
    if (s3.at(key).get<double>() < least)
      err.add("s3." + key, fmt::format("expected at least {:.6g} ms with s3.ttfb_distribution = quantiles (the table's "
                                       "median minus its minimum: no draw below zero), got {}",
                                       least, s3.at(key).get<double>()));
  }
  for (double& v : x)
    v *= 1e-3;
  p.ttfb_quantile_levels = q;
  p.ttfb_quantiles_s = x;
}

// The top level: the keys every kind has plus the remote_scan section.
void check_top(const json& doc, Errors& err) {
  if (!doc.is_object()) {
    err.add("", fmt::format("expected an object, got {}", json_kind(doc)));
    return;
  }
  auto lookup = [](const std::string& key) -> const ParamSpec* {
    if (const ParamSpec* p = find_param(Section::remote_scan, key)) return p;
    const ParamSpec* p = find_param(Section::scenario, key);
    return p && p->every_kind ? p : nullptr;
  };
  for (const auto& [key, value] : doc.items()) {
    const ParamSpec* p = lookup(key);
    if (!p) {
      std::string known;
      for (const ParamSpec* q : every_kind_params())
        known += (known.empty() ? "" : ", ") + q->name;
      err.add(key, fmt::format("unknown key for a remote_scan scenario; expected one of: {}, {}", known,
                               known_keys(Section::remote_scan)));
      continue;
    }
    check_value(*p, value, key, err);
  }
  for (const ParamSpec* p : every_kind_params())
    if (p->required && !doc.contains(p->name))
      err.add(p->name, "required key is missing; expected " + describe_expectation(*p));
}

} // namespace

bool is_remote_scan(const json& doc) {
  return doc.is_object() && doc.contains("kind") && doc["kind"].is_string() &&
         doc["kind"].get<std::string>() == "remote_scan";
}

std::vector<int64_t> RemoteScanScenario::splits_of(int executor) const {
  std::vector<int64_t> out;
  for (size_t i = static_cast<size_t>(executor); i < split_bytes.size(); i += static_cast<size_t>(executors))
    out.push_back(split_bytes[i]);
  return out;
}

int64_t RemoteScanScenario::data_bytes_total() const {
  int64_t sum = 0;
  for (int64_t b : split_bytes)
    sum += b;
  return sum;
}

Scenario load_remote_scan(json doc, const std::string& file) {
  // Phase 1: structure.
  Errors err(file);
  check_top(doc, err);
  err.throw_if_any();
  for (const auto& [key, section] : nested_sections())
    if (doc.contains(key)) check_object(section, doc[key], key, err);
  err.throw_if_any();

  // Defaults, then phase 2: meaning.
  json parts = json::object();
  for (const auto& [key, section] : nested_sections()) {
    parts[key] = with_defaults(section, doc.value(key, json::object()));
    normalise_integers(section, parts[key]);
  }
  const json& cl = parts["cluster"];
  const json& s3 = parts["s3"];
  json& sp = parts["splits"];
  const json& pf = parts["prefetch"];

  Scenario out;
  out.file = file;
  out.name = doc.contains("name") ? doc["name"].get<std::string>() : default_scenario_name(file);
  out.description = doc.value("description", std::string());
  out.seed = read_seed(doc);

  auto rs = std::make_shared<RemoteScanScenario>();
  PrefetchConfig& p = rs->prefetch;
  // Every key a row binds; the rest below: the ttfb table, the adaptive policy and its cap (defaults
  // derived from other keys), the splits (a list, or a count spread by size).
  bind_fields(Section::remote_scan_cluster, cl, *rs);
  bind_fields(Section::remote_scan_s3, s3, *rs);
  bind_fields(Section::remote_scan, doc, p);
  for (const auto& [key, section] : nested_sections())
    bind_fields(section, parts[key], p);
  if (rs->hosts > rs->executors)
    err.add("cluster.hosts",
            fmt::format(
                "expected at most cluster.executors = {} (a host without an executor reads nothing), got {}",
                rs->executors, rs->hosts));
  if (rs->hosts == 0) rs->hosts = rs->executors;

  const bool quantiles = s3.at("ttfb_distribution").get<std::string>() == "quantiles";
  for (const char* kind : {"data", "footer"}) {
    if (quantiles) break; // the p99s belong to the lognormal
    const std::string p50 = fmt::format("{}_ttfb_p50_ms", kind), p99 = fmt::format("{}_ttfb_p99_ms", kind);
    if (s3.at(p99).get<double>() < s3.at(p50).get<double>())
      err.add("s3." + p99, fmt::format("expected at least s3.{} = {}, got {}", p50, s3.at(p50).get<double>(),
                                       s3.at(p99).get<double>()));
  }
  // The lognormal's spread: a p99 far above the median draws times that no time series can follow.
  for (const char* kind : {"data", "footer"}) {
    if (quantiles) break;
    const std::string p50 = fmt::format("{}_ttfb_p50_ms", kind), p99 = fmt::format("{}_ttfb_p99_ms", kind);
    if (s3.at(p99).get<double>() > kMaxTtfbSpread * s3.at(p50).get<double>())
      err.add("s3." + p99, fmt::format("expected at most {} x s3.{} = {}, got {}", kMaxTtfbSpread, p50,
                                       kMaxTtfbSpread * s3.at(p50).get<double>(), s3.at(p99).get<double>()));
  }
  if (quantiles) read_ttfb_quantiles(s3, p, err);
  // An adaptive C: by default capped where more splits cannot be registered at once (the plan-ahead
  // window, and one split held by each driver).
  if (pf.contains("split_prefetch_policy"))
    parse_window_policy(pf.at("split_prefetch_policy").get<std::string>(), p.split_policy); // checked
  p.split_max = pf.contains("split_prefetch_max") ? pf.at("split_prefetch_max").get<int>()
                                                  : p.plan_ahead_splits + p.scan_drivers;
  if (p.split_policy != WindowPolicyKind::fixed && p.split_max < p.split_concurrency)
    err.add(pf.contains("split_prefetch_max") ? "prefetch.split_prefetch_max" : "prefetch.plan_ahead_splits",
            fmt::format(
                "expected {} at least executorSplitPrefetchConcurrency ({}), where an adaptive policy ({}) "
                "starts; got {}",
                pf.contains("split_prefetch_max") ? "split_prefetch_max" : "plan_ahead_splits + scan.drivers",
                p.split_concurrency, to_string(p.split_policy), p.split_max));

  // Splits: an explicit list, or a count and a total spread by size_cv.
  const bool listed = sp.contains("bytes");
  const bool counted = sp.contains("count") || sp.contains("data_bytes_total");
  if (listed && counted) {
    err.add(sp.contains("count") ? "splits.count" : "splits.data_bytes_total",
            "give either `bytes` (one number per split) or `count` with `data_bytes_total`, not both");
  } else if (listed) {
    const json& b = sp["bytes"];
    if (b.empty()) err.add("splits.bytes", "expected at least one split");
    for (size_t i = 0; i < b.size(); ++i) {
      if (!is_integral(b[i]))
        err.add(fmt::format("splits.bytes[{}]", i),
                fmt::format("expected a whole number of bytes, got {}", show(b[i])));
      else
        rs->split_bytes.push_back(static_cast<int64_t>(b[i].get<double>()));
    }
    double total = 0; // in a double: a long list of large splits overflows an int64_t
    for (int64_t bytes : rs->split_bytes)
      total += static_cast<double>(bytes);
    if (total > static_cast<double>(kMaxDataBytes))
      err.add("splits.bytes", fmt::format("expected at most {} bytes in all (as splits.data_bytes_total), got more",
                                          kMaxDataBytes));
    if (sp.at("size_cv").get<double>() != 0)
      err.add("splits.size_cv", "applies to count and data_bytes_total only; remove it with `bytes`");
  } else {
    for (const char* key : {"count", "data_bytes_total"})
      if (!sp.contains(key))
        err.add(std::string("splits.") + key,
                "required key is missing; expected an integer (or give `bytes`, one number per split)");
    if (sp.contains("count") && sp.contains("data_bytes_total")) {
      const int64_t count = sp["count"].get<int64_t>(), total = sp["data_bytes_total"].get<int64_t>();
      if (total < count)
        err.add(
            "splits.data_bytes_total",
            fmt::format("expected at least one byte per split (splits.count = {}), got {}", count, total));
      else
        rs->split_bytes = spread_split_bytes(count, total, sp.at("size_cv").get<double>(),
                                             Rng::stream_seed(out.seed, kSplitSizeStream));
    }
  }
  err.throw_if_any();

  sp["count"] = rs->split_bytes.size();
  sp["data_bytes_total"] = rs->data_bytes_total();
  sp["bytes_min"] = *std::min_element(rs->split_bytes.begin(), rs->split_bytes.end());
  sp["bytes_max"] = *std::max_element(rs->split_bytes.begin(), rs->split_bytes.end());
  sp.erase("bytes"); // the list can be long; count, total and range say what was simulated
  parts["cluster"]["hosts"] = rs->hosts;
  out.settings = {{"kind", "remote_scan"}, {"seed", out.seed}, {"series_step_s", p.series_step_s}};
  for (const auto& [key, value] : parts.items())
    out.settings[key] = value;
  out.remote_scan = std::move(rs);
  return out;
}

} // namespace exsim
