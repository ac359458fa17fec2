#include "output/summary.hpp"

#include "models/core/critical_path.hpp"
#include "models/network/network_model.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cstdio>
#include <map>
#include <vector>

namespace exsim {

using nlohmann::json;

namespace {

constexpr size_t kExchangeRowsMax = 20; // beyond this, a workload is summarised by query
constexpr double kMiB = 1024.0 * 1024.0;

struct Table {
  std::vector<std::string> header;
  std::vector<bool> right; // right-aligned (numeric) columns
  std::vector<std::vector<std::string>> rows;
};

std::string csv_cell(const std::string& s) {
  if (s.find_first_of(",\"\n") == std::string::npos) return s;
  std::string out = "\"";
  for (char c : s)
    out += c == '"' ? std::string("\"\"") : std::string(1, c);
  return out + "\"";
}

std::string render(const Table& t, SummaryFormat f) {
  std::string out;
  const size_t n = t.header.size();
  if (f == SummaryFormat::csv) {
    for (const auto* row : {&t.header}) {
      for (size_t i = 0; i < n; ++i)
        out += (i ? "," : "") + csv_cell((*row)[i]);
      out += "\n";
    }
    for (const auto& row : t.rows) {
      for (size_t i = 0; i < n; ++i)
        out += (i ? "," : "") + csv_cell(row[i]);
      out += "\n";
    }
    return out;
  }
  if (f == SummaryFormat::markdown) {
    auto md_row = [&](const std::vector<std::string>& row) {
      out += "|";
      for (size_t i = 0; i < n; ++i) {
        std::string cell = row[i];
        for (size_t p = cell.find('|'); p != std::string::npos; p = cell.find('|', p + 2))
          cell.replace(p, 1, "\\|");
        out += " " + cell + " |";
      }
      out += "\n";
    };
    md_row(t.header);
    out += "|";
    for (size_t i = 0; i < n; ++i)
      out += t.right[i] ? "---:|" : "---|";
    out += "\n";
    for (const auto& row : t.rows)
      md_row(row);
    return out + "\n";
  }
  std::vector<size_t> width(n, 0);
  for (size_t i = 0; i < n; ++i) {
    width[i] = t.header[i].size();
    for (const auto& row : t.rows)
      width[i] = std::max(width[i], row[i].size());
  }
  auto text_row = [&](const std::vector<std::string>& row) {
    std::string line;
    for (size_t i = 0; i < n; ++i) {
      const std::string pad(width[i] - row[i].size(), ' ');
      line += (i ? "  " : "") + (t.right[i] ? pad + row[i] : row[i] + pad);
    }
    while (!line.empty() && line.back() == ' ')
      line.pop_back();
    out += line + "\n";
  };
  text_row(t.header);
  for (const auto& row : t.rows)
    text_row(row);
  return out;
}

// Paragraphs, headings and tables in the chosen format (text or md).
class Doc {
public:
  explicit Doc(SummaryFormat f) : f_(f) {}
  void line(const std::string& s) { out_ += s + (f_ == SummaryFormat::markdown ? "\n\n" : "\n"); }
  void heading(const std::string& s) {
    out_ += f_ == SummaryFormat::markdown ? "### " + s + "\n\n" : s + ":\n";
  }
  void table(const Table& t) { out_ += render(t, f_); }
  void bullet(const std::string& s) { out_ += (f_ == SummaryFormat::markdown ? "- " : "  ") + s + "\n"; }
  void end_list() {
    if (f_ == SummaryFormat::markdown) out_ += "\n";
  }
  std::string str() const { return out_; }

private:
  SummaryFormat f_;
  std::string out_;
};

double num(const json& j, const char* key, double fallback = 0) {
  const auto it = j.find(key);
  return it != j.end() && it->is_number() ? it->get<double>() : fallback;
}
int64_t integer(const json& j, const char* key, int64_t fallback = 0) {
  const auto it = j.find(key);
  return it != j.end() && it->is_number() ? it->get<int64_t>() : fallback;
}
std::string str(const json& j, const char* key) {
  const auto it = j.find(key);
  return it != j.end() && it->is_string() ? it->get<std::string>() : std::string();
}

// An exchange's K as a reader should see it: the fixed K, or an adaptive policy with its start, its
// cap and the mean K its channels were given ("gradient 1..8, mean 6.15").
std::string k_text(const json& x) {
  if (x.contains("k_window") && x["k_window"].is_object()) {
    const json& w = x["k_window"];
    return fmt::format("{} {}..{}, mean {:.2f}", str(w, "policy"), integer(w, "k_start"), integer(w, "k_cap"),
                       num(w, "k_mean"));
  }
  return std::to_string(integer(x, "k"));
}

// `v` with `decimals` decimals, and no minus sign on a value that rounds to zero (a part of a
// critical path of -1e-14 s, left by subtracting sums, is 0.000, not -0.000).
std::string fixed(double v, int decimals) {
  std::string text = fmt::format("{:.{}f}", v, decimals);
  if (text.front() == '-' && text.find_first_not_of("-0.") == std::string::npos) text.erase(0, 1);
  return text;
}

std::string mib(double bytes) {
  return fmt::format("{:.2f}", bytes / kMiB);
}

// A number with 4 significant digits, without exponent for everyday magnitudes.
std::string figure(double v) {
  if (v != 0 && (std::abs(v) >= 1e7 || std::abs(v) < 1e-3)) return fmt::format("{:.4g}", v);
  if (std::abs(v) >= 1000) return fmt::format("{:.0f}", v);
  return fmt::format("{:.4g}", v);
}

// Per-query figures rolled up from the exchanges that name the query.
struct QueryRollup {
  std::string name, status;
  double runtime_s = 0, span_s = 0, blocked_s = 0;
  int64_t exchanges = 0, memory_bytes = 0;
  const json* main = nullptr; // the exchange whose slowest sender blocked longest (else the longest)
  std::vector<std::pair<std::string, double>> breakdown; // critical path, seconds by part, largest first
};

// "cpu_aggregate 45%, rtt 29%, startup 8%": the largest parts of a query's critical path.
std::string critical_path_text(const QueryRollup& q, size_t parts = 3) {
  std::string out;
  for (size_t i = 0; i < q.breakdown.size() && i < parts; ++i) {
    const auto& [name, seconds] = q.breakdown[i];
    if (!(seconds > 0) || !(q.runtime_s > 0)) break;
    std::string label = name.size() > 2 && name.compare(name.size() - 2, 2, "_s") == 0 ? name.substr(0, name.size() - 2)
                                                                                      : name;
    out += fmt::format("{}{} {:.0f}%", out.empty() ? "" : ", ", label, 100 * seconds / q.runtime_s);
  }
  return out;
}

std::vector<QueryRollup> rollups(const json& r) {
  std::vector<QueryRollup> out;
  std::map<std::string, size_t> index;
  for (const json& q : r.value("queries", json::array())) {
    QueryRollup qr;
    qr.name = str(q, "query");
    qr.status = str(q, "status");
    qr.runtime_s = num(q, "runtime_s");
    qr.span_s = num(q, "exchange_span_s");
    if (q.contains("breakdown") && q["breakdown"].is_object()) {
      for (const auto& [part, seconds] : q["breakdown"].items())
        if (seconds.is_number()) qr.breakdown.emplace_back(part, seconds.get<double>());
      std::stable_sort(qr.breakdown.begin(), qr.breakdown.end(),
                       [](const auto& a, const auto& b) { return a.second > b.second; });
    }
    index[qr.name] = out.size();
    out.push_back(qr);
  }
  for (const json& x : r.at("exchanges")) {
    const auto it = index.find(str(x, "query"));
    if (it == index.end()) continue;
    QueryRollup& q = out[it->second];
    q.exchanges++;
    q.blocked_s += num(x, "slowest_sender_blocked_s");
    q.memory_bytes += integer(x, "memory_estimate_bytes");
    auto key = [](const json& e) {
      return std::make_pair(num(e, "slowest_sender_blocked_s"), num(e, "duration_s"));
    };
    if (!q.main || key(x) > key(*q.main)) q.main = &x;
  }
  return out;
}

// exact: full precision and bytes, for csv.
Table query_table(const std::vector<const QueryRollup*>& qs, bool exact = false) {
  auto secs = [exact](double v) { return exact ? fmt::format("{}", v) : fixed(v, 3); };
  Table t{{"query", "runtime_s", "exchange_span_s", "blocked_s", "exchanges",
           exact ? "memory_estimate_bytes" : "mem_est_MiB", "bound",
           exact ? "main_exchange" : "main exchange", "status", exact ? "critical_path" : "critical path"},
          {false, true, true, true, true, true, false, false, false, false},
          {}};
  for (const QueryRollup* q : qs)
    t.rows.push_back({q->name, secs(q->runtime_s), secs(q->span_s), secs(q->blocked_s),
                      std::to_string(q->exchanges),
                      exact ? std::to_string(q->memory_bytes) : mib(static_cast<double>(q->memory_bytes)),
                      q->main ? str(*q->main, "bound") : "", q->main ? str(*q->main, "id") : "", q->status,
                      critical_path_text(*q)});
  return t;
}

// Where each query's time went along its critical path (seconds; the parts sum to runtime_s).
Table breakdown_table(const std::vector<const QueryRollup*>& qs) {
  std::vector<std::string> parts; // those that are not zero for every query, in the results' order
  for (const QueryRollup* q : qs)
    for (const auto& [name, seconds] : q->breakdown)
      if (seconds > 5e-4 && std::find(parts.begin(), parts.end(), name) == parts.end()) parts.push_back(name);
  std::sort(parts.begin(), parts.end());
  Table t{{"query", "runtime_s"}, {false, true}, {}};
  for (const std::string& p : parts) {
    t.header.push_back(p);
    t.right.push_back(true);
  }
  for (const QueryRollup* q : qs) {
    std::vector<std::string> row{q->name, fixed(q->runtime_s, 3)};
    for (const std::string& p : parts) {
      double v = 0;
      for (const auto& [name, seconds] : q->breakdown)
        if (name == p) v = seconds;
      row.push_back(fixed(v, 3));
    }
    t.rows.push_back(row);
  }
  return t;
}

Table exchange_table(const json& r, bool with_query) {
  Table t{{"exchange", "partitioning", "K", "duration_s", "rpcs", "mean_rpc_B", "blocked_s", "deferred",
           "mem_est_MiB", "bound", "status"},
          {false, false, true, true, true, true, true, true, true, false, false},
          {}};
  if (with_query) {
    t.header.insert(t.header.begin() + 1, "query");
    t.right.insert(t.right.begin() + 1, false);
  }
  for (const json& x : r.at("exchanges")) {
    std::vector<std::string> row{str(x, "id"),
                                 str(x, "partitioning") + (x.value("merging", false) ? "*" : ""),
                                 k_text(x),
                                 fixed(num(x, "duration_s"), 4),
                                 std::to_string(integer(x, "rpcs")),
                                 fmt::format("{:.0f}", num(x, "mean_rpc_bytes")),
                                 fixed(num(x, "slowest_sender_blocked_s"), 4),
                                 std::to_string(integer(x, "rpcs_deferred")),
                                 mib(static_cast<double>(integer(x, "memory_estimate_bytes"))),
                                 str(x, "bound"),
                                 str(x, "status")};
    if (with_query) row.insert(row.begin() + 1, str(x, "query"));
    t.rows.push_back(std::move(row));
  }
  return t;
}

// The simulated value that a measured counter named `key` compares with: the entry's own figure,
// else, for an exchange, the counter over its instances (summed for counts and bytes, the largest
// for times, as the slowest instance bounds the exchange), else, for a query, the sum over its
// exchanges. False when the results have no such figure.
bool simulated_value(const json& r, const json& entry, bool is_query, const std::string& key, double& out) {
  const auto own = entry.find(key);
  if (own != entry.end() && own->is_number()) {
    out = own->get<double>();
    return true;
  }
  const bool is_time = key.size() > 2 && key.compare(key.size() - 2, 2, "_s") == 0;
  if (!is_query) {
    for (const char* side : {"sender_instances", "receiver_instances"}) {
      bool found = false;
      double v = 0;
      for (const json& inst : entry.value(side, json::array())) {
        const auto it = inst.find(key);
        if (it == inst.end() || !it->is_number()) continue;
        v = !found ? it->get<double>() : is_time ? std::max(v, it->get<double>()) : v + it->get<double>();
        found = true;
      }
      if (found) {
        out = v;
        return true;
      }
    }
    return false;
  }
  bool found = false;
  double sum = 0;
  for (const json& x : r.at("exchanges")) {
    double v = 0;
    if (str(x, "query") == str(entry, "query") && simulated_value(r, x, false, key, v)) {
      sum += v;
      found = true;
    }
  }
  out = sum;
  return found;
}

Table expected_table(const json& r) {
  Table t{{"entry", "counter", "measured", "simulated", "simulated/measured"},
          {false, false, true, true, true},
          {}};
  auto add = [&](const json& entry, bool is_query) {
    const auto exp = entry.find("expected");
    if (exp == entry.end() || !exp->is_object()) return;
    const std::string name = is_query ? "query " + str(entry, "query") : str(entry, "id");
    for (const auto& [key, measured] : exp->items()) {
      if (!measured.is_number()) continue;
      double sim = 0;
      const bool have = simulated_value(r, entry, is_query, key, sim);
      const double m = measured.get<double>();
      t.rows.push_back({name, key, figure(m), have ? figure(sim) : "-",
                        !have    ? "not simulated"
                        : m != 0 ? fmt::format("{:.3f}", sim / m)
                                 : "-"});
    }
  };
  for (const json& q : r.value("queries", json::array()))
    add(q, true);
  for (const json& x : r.at("exchanges"))
    add(x, false);
  return t;
}

// One line on where whole queries' time went along their critical paths (the results' breakdowns
// summed), and how much of it is the exchanges': the most K, the buffer size or compression can take
// off those paths, unless they lengthen another part (a larger K adds sender CPU, for one).
// Seconds as a reader takes them in: 373.5 s, 2.35 s, 640 ms.
std::string seconds_text(double v) {
  if (v >= 10) return fmt::format("{:.1f} s", v);
  if (v >= 1) return fmt::format("{:.2f} s", v);
  return fmt::format("{:.0f} ms", v * 1e3);
}

std::string queries_lesson(const json& s) {
  if (!s.contains("breakdown_s_total") || !s["breakdown_s_total"].is_object()) return "";
  const json& b = s["breakdown_s_total"];
  double total = 0, exchange = 0;
  std::vector<std::pair<std::string, double>> groups; // in the parts' order
  std::vector<std::string> exchange_labels;
  for (const PathPartInfo& p : path_parts()) {
    const double v = num(b, p.key);
    total += v;
    auto it = std::find_if(groups.begin(), groups.end(), [&](const auto& g) { return g.first == p.group; });
    if (it == groups.end()) it = groups.insert(groups.end(), {p.group, 0.0});
    it->second += v;
    if (p.exchange) {
      exchange += v;
      exchange_labels.emplace_back(p.label);
    }
  }
  if (!(total > 0)) return "";
  std::stable_sort(groups.begin(), groups.end(), [](const auto& a, const auto& b) { return a.second > b.second; });
  std::string largest;
  for (size_t i = 0; i < groups.size() && i < 4 && groups[i].second >= 0.05 * total; ++i)
    largest += fmt::format("{}{} {}", largest.empty() ? "" : ", ", groups[i].first, seconds_text(groups[i].second));
  return fmt::format("Lesson: along the queries' critical paths ({} summed) the time goes to {}; the exchanges' "
                     "parts ({}) are {} ({:.0f}%): the most K, the buffer size or compression can take off these "
                     "paths, unless they lengthen another part.",
                     seconds_text(total), largest, fmt::join(exchange_labels, ", "), seconds_text(exchange),
                     100 * exchange / total);
}

// One line on what bounds a single exchange and what K or the buffer would change, from its bound.
std::string lesson(const json& r, const json& x) {
  const std::string bound = str(x, "bound");
  const double blocked = num(x, "slowest_sender_blocked_s"), duration = num(x, "duration_s");
  const json cluster = r.contains("settings") ? r["settings"].value("cluster", json::object()) : json::object();
  const double rtt_us = num(cluster, "rtt_us");
  const double dispatch_us = num(cluster, "rpc_dispatch_us");
  const std::string round_trip =
      dispatch_us > 0 ? fmt::format("{:.0f} us round trip and {:.0f} us of dispatch at the receiver", rtt_us,
                                    dispatch_us)
                      : fmt::format("{:.0f} us round trip", rtt_us);
  const int64_t k = integer(x, "k", 1);
  const bool k_fixed = !str(x, "k_reason").empty() || x.value("merging", false);
  const std::string wait =
      fmt::format("its slowest sender waited {:.3f} s of {:.3f} s for an RPC slot", blocked, duration);
  if (bound == "rpc_window")
    return fmt::format(
        "Lesson: round trips bound this exchange ({}: a channel has at most K={} RPC(s) of about {:.0f} "
        "bytes "
        "in flight per {}). {} would shorten that wait until the sender CPU or the NIC "
        "binds, "
        "at the price of more memory (K+1 batches per channel).",
        wait, x.contains("k_window") ? k_text(x) : std::to_string(k), num(x, "mean_rpc_bytes"), round_trip,
        k_fixed ? "A larger data_stream_sender_buffer_size (K stays 1 here)"
                // The report's rule: a flag before new code. Which is faster, and what each costs,
                // only simulating both says (run_sweep.py with a grid over both, then analysis/report.py).
                : "Try a larger data_stream_sender_buffer_size first (a flag: larger RPCs per round trip, no new "
                  "Impala code), then a larger K (more RPCs in flight per channel, which needs new Impala code; "
                  "a sweep over both says which is faster for the memory, and rpcs_in_flight_policy=gradient "
                  "or bdp what a K found at run time would do); either");
  if (bound == "bandwidth")
    return fmt::format("Lesson: the NICs bound this exchange ({}, the RPCs spend their time moving bytes); a "
                       "larger K or buffer would add memory but not speed; compression or fewer bytes would.",
                       wait);
  if (bound == "sender_cpu")
    return "Lesson: the sender's own CPU bounds this exchange (producing, hashing, serializing and "
           "compressing "
           "rows), not the round trips; a larger K or buffer would add memory but not speed.";
  if (bound == "receiver_cpu")
    return "Lesson: the receivers' CPU (deserializing and consuming) bounds this exchange; a larger K or "
           "buffer would add memory but not speed.";
  if (bound == "backpressure")
    return "Lesson: the receivers push back (their queues are full, RPCs are deferred); a larger K or buffer "
           "would only hold more data waiting; a faster consumer or a larger exchg_node_buffer_size_bytes "
           "would help.";
  if (bound == "none")
    return fmt::format("Lesson: none to draw: the exchange {} before sending any data.", str(x, "status"));
  return "";
}

std::string csv_summary(const json& r, const std::vector<QueryRollup>& qs) {
  if (!qs.empty()) {
    std::vector<const QueryRollup*> all;
    for (const auto& q : qs)
      all.push_back(&q);
    Table t = query_table(all, true);
    t.header.push_back("error");
    for (size_t i = 0; i < qs.size(); ++i) {
      std::string error;
      for (const json& x : r.at("exchanges"))
        if (str(x, "query") == qs[i].name && str(x, "status") != "ok" && !str(x, "error").empty()) {
          error = str(x, "id") + ": " + str(x, "error");
          break;
        }
      t.rows[i].push_back(error);
    }
    return render(t, SummaryFormat::csv);
  }
  Table t{{"exchange", "query", "partitioning", "merging", "k", "k_configured", "duration_s", "rpcs",
           "mean_rpc_bytes", "slowest_sender_blocked_s", "rpcs_deferred", "memory_estimate_bytes", "bound",
           "status", "error", "k_reason", "k_policy", "k_mean"},
          std::vector<bool>(18, false),
          {}};
  for (const json& x : r.at("exchanges"))
    t.rows.push_back(
        {str(x, "id"), str(x, "query"), str(x, "partitioning"), x.value("merging", false) ? "true" : "false",
         std::to_string(integer(x, "k")), std::to_string(integer(x, "k_configured", integer(x, "k"))),
         fmt::format("{}", num(x, "duration_s")), std::to_string(integer(x, "rpcs")),
         fmt::format("{}", num(x, "mean_rpc_bytes")), fmt::format("{}", num(x, "slowest_sender_blocked_s")),
         std::to_string(integer(x, "rpcs_deferred")), std::to_string(integer(x, "memory_estimate_bytes")),
         str(x, "bound"), str(x, "status"), str(x, "error"), str(x, "k_reason"),
         x.contains("k_window") ? str(x["k_window"], "policy") : std::string("fixed"),
         x.contains("k_window") ? fmt::format("{}", num(x["k_window"], "k_mean")) : std::to_string(integer(x, "k"))});
  return render(t, SummaryFormat::csv);
}

} // namespace

bool parse_summary_format(const std::string& name, SummaryFormat& out) {
  if (name == "text")
    out = SummaryFormat::text;
  else if (name == "md" || name == "markdown")
    out = SummaryFormat::markdown;
  else if (name == "csv")
    out = SummaryFormat::csv;
  else
    return false;
  return true;
}

std::string format_summary(const json& r, const SummaryOptions& o) {
  const auto& s = r.at("summary");
  const std::vector<QueryRollup> qs = rollups(r);
  if (o.format == SummaryFormat::csv) return csv_summary(r, qs);
  const json& xs = r.at("exchanges");
  const size_t top = static_cast<size_t>(std::max(1, o.top));
  const bool sequential =
      r.contains("settings") && r["settings"].value("query_order", std::string()) == "sequential";
  Doc d(o.format);

  std::string head = fmt::format("scenario {}: {} exchange(s)",
                                 r.at("scenario").at("name").get<std::string>(), integer(s, "exchanges"));
  if (!qs.empty())
    head += fmt::format(" in {} quer{}{}, runtime summed {:.3f} s", qs.size(), qs.size() == 1 ? "y" : "ies",
                        sequential ? " run one after another" : "", num(s, "runtime_s_total"));
  d.line(head + fmt::format(", simulated {:.6f} s", num(s, "makespan_s")));
  // On a cluster large enough for the model to matter, which one ran (the run's stderr note).
  const json cluster = r.contains("settings") ? r["settings"].value("cluster", json::object()) : json::object();
  const NetworkModelKind* model = find_network_model(cluster.value("network_model", std::string()));
  if (model != nullptr && cluster.contains("executors") && cluster["executors"].is_number_integer()) {
    const std::string note = network_model_note(model->model, cluster["executors"].get<int>());
    if (!note.empty()) d.line(note.substr(note.find(' ') + 1));
  }

  const bool per_exchange = xs.size() <= kExchangeRowsMax || qs.empty();
  if (per_exchange) {
    d.table(exchange_table(r, !qs.empty()));
    if (!qs.empty()) {
      std::vector<const QueryRollup*> all;
      for (const auto& q : qs)
        all.push_back(&q);
      d.heading("queries (critical path: the largest parts of where each query's time went)");
      d.table(query_table(all));
      if (std::any_of(qs.begin(), qs.end(), [](const QueryRollup& q) { return !q.breakdown.empty(); })) {
        d.heading("critical path of each query, seconds (the parts sum to runtime_s)");
        d.table(breakdown_table(all));
      }
    }
  } else {
    std::vector<const QueryRollup*> by_runtime, by_blocked;
    for (const auto& q : qs)
      by_runtime.push_back(&q);
    by_blocked = by_runtime;
    std::stable_sort(by_runtime.begin(), by_runtime.end(),
                     [](const QueryRollup* a, const QueryRollup* b) { return a->runtime_s > b->runtime_s; });
    std::stable_sort(by_blocked.begin(), by_blocked.end(),
                     [](const QueryRollup* a, const QueryRollup* b) { return a->blocked_s > b->blocked_s; });
    by_runtime.resize(std::min(top, by_runtime.size()));
    by_blocked.resize(std::min(top, by_blocked.size()));
    d.heading(fmt::format("top {} queries by runtime (blocked_s: slowest-sender blocked time summed over the "
                          "query's exchanges; bound: that of its main exchange, the one blocked longest)",
                          by_runtime.size()));
    d.table(query_table(by_runtime));
    d.heading(fmt::format("top {} queries by blocked time", by_blocked.size()));
    d.table(query_table(by_blocked));
    d.heading(fmt::format("critical path of the top {} queries by runtime, seconds (the parts sum to runtime_s)",
                          by_runtime.size()));
    d.table(breakdown_table(by_runtime));
    d.line(fmt::format("({} exchanges: one row per exchange in the results JSON; --format csv gives one row "
                       "per query)",
                       xs.size()));
  }

  d.line(
      fmt::format("total: {} TransmitData RPCs, mean {:.0f} bytes on the wire, slowest-sender blocked time "
                  "summed {:.4f} s{}",
                  integer(s, "rpcs"), num(s, "mean_rpc_bytes"), num(s, "slowest_sender_blocked_s_total"),
                  per_exchange && std::any_of(xs.begin(), xs.end(),
                                              [](const json& x) { return x.value("merging", false); })
                      ? "   (* = merging)"
                      : ""));
  const double mem_total = static_cast<double>(integer(s, "memory_estimate_bytes_total"));
  if (!qs.empty()) {
    const auto peak = std::max_element(qs.begin(), qs.end(), [](const QueryRollup& a, const QueryRollup& b) {
      return a.memory_bytes < b.memory_bytes;
    });
    if (sequential)
      d.line(
          fmt::format("memory estimate: peak query {} with {} MiB (the sum of its exchanges' estimates; the "
                      "queries run one after another; all exchanges together: {} MiB)",
                      peak->name, mib(static_cast<double>(peak->memory_bytes)), mib(mem_total)));
    else
      d.line(fmt::format("memory estimate: {} MiB over all exchanges (the queries may run at once); largest "
                         "query {} with {} MiB",
                         mib(mem_total), peak->name, mib(static_cast<double>(peak->memory_bytes))));
    d.line(fmt::format("hash exchanges: {} TransmitData RPCs, mean {:.0f} bytes on the wire; {} hash "
                       "exchange(s) not pushing back, their slowest senders blocked {:.2f} s in all",
                       integer(s, "hash_rpcs"), num(s, "hash_mean_rpc_bytes"),
                       integer(s, "nonpushback_hash_exchanges"),
                       num(s, "nonpushback_slowest_sender_blocked_s_total")));
  } else {
    d.line(fmt::format("memory estimate: {} MiB (the exchanges' sender estimates summed)", mib(mem_total)));
  }

  // Failures, with the reason the results give.
  std::vector<const json*> failed;
  for (const json& x : xs)
    if (str(x, "status") != "ok") failed.push_back(&x);
  if (!failed.empty()) {
    d.heading(fmt::format("{} exchange(s) not ok", failed.size()));
    for (size_t i = 0; i < failed.size() && i < top; ++i) {
      const json& x = *failed[i];
      const std::string query = str(x, "query");
      const std::string error = str(x, "error");
      d.bullet(fmt::format("{}{}: {}: {}", str(x, "id"), query.empty() ? "" : " (query " + query + ")",
                           str(x, "status"), error.empty() ? "no reason recorded" : error));
    }
    if (failed.size() > top)
      d.bullet(fmt::format("... and {} more (see the results JSON)", failed.size() - top));
    d.end_list();
  }

  // Exchanges that did not get the configured K, grouped by reason.
  std::map<std::string, std::vector<std::string>> kept; // "K=a although b: reason" -> ids
  for (const json& x : xs) {
    const int64_t k = integer(x, "k"), configured = integer(x, "k_configured", k);
    if (k != configured)
      kept[fmt::format("K={} instead of the configured {}: {}", k, configured, str(x, "k_reason"))].push_back(
          str(x, "id"));
  }
  if (!kept.empty()) {
    size_t n = 0;
    for (const auto& [_, ids] : kept)
      n += ids.size();
    d.heading(fmt::format("{} exchange(s) did not get the configured rpcs_in_flight_per_channel", n));
    for (const auto& [reason, ids] : kept) {
      std::string list;
      for (size_t i = 0; i < ids.size() && i < 8; ++i)
        list += (i ? ", " : "") + ids[i];
      if (ids.size() > 8) list += fmt::format(", ... ({} in all)", ids.size());
      d.bullet(fmt::format("{}: {}", list, reason));
    }
    d.end_list();
  }

  const Table expected = expected_table(r);
  if (!expected.rows.empty()) {
    d.heading("measured vs simulated (from the `expected` counters the results carry)");
    d.table(expected);
  }

  if (xs.size() == 1) {
    const std::string l = lesson(r, xs.at(0));
    if (!l.empty()) d.line(l);
  } else if (!qs.empty()) {
    const std::string l = queries_lesson(s);
    if (!l.empty()) d.line(l);
  }
  return d.str();
}

void print_summary(const json& results, const SummaryOptions& options) {
  const std::string text = format_summary(results, options);
  std::fwrite(text.data(), 1, text.size(), stdout);
}

} // namespace exsim
