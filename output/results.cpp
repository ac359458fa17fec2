#include "output/results.hpp"

#include "input/scenario.hpp"
#include "models/exchange/bound.hpp"
#include "models/exchange/memory.hpp"
#include "models/query/query.hpp"
#include "models/run.hpp"
#include "output/fields.hpp"
#include "output/settings.hpp"

#include <algorithm>

namespace exsim {

using nlohmann::json;

namespace {

// An instance's entry: the rows of its section that read one of its members, and its index (and a
// sender's throughput).
json sender_json(const SenderCounters& c, int index, double offset) {
  json out = member_fields(FieldSection::sender, c, offset);
  out["index"] = index;
  out["NetworkThroughput_Bps"] =
      c.RpcNetworkTime > 0 ? static_cast<double>(c.TotalBytesSent) / c.RpcNetworkTime : 0.0;
  return out;
}

json receiver_json(const ReceiverCounters& c, int index, double offset) {
  json out = member_fields(FieldSection::receiver, c, offset);
  out["index"] = index;
  return out;
}

// A query without runtime filters has no such wait: its breakdown keeps the keys it always had.
json path_json(const Path& p, bool runtime_filters = false) {
  json out = json::object();
  for (size_t i = 0; i < kPathParts; ++i) {
    const auto part = static_cast<PathPart>(i);
    if (part == PathPart::runtime_filter_wait && !runtime_filters) continue;
    out[path_part_key(part)] = p.get(part);
  }
  return out;
}

json parse_or_empty(const std::string& text) { return text.empty() ? json::object() : json::parse(text); }

// An exchange's totals over its instances, for its entry and for the summary.
struct ExchangeFigures {
  int64_t rpcs = 0, eos = 0, bytes = 0, rows = 0, dropped = 0, deferred = 0, teardown = 0;
  double network_s = 0;
  int slowest = 0; // the sender blocked longest
  double receiver_cpu_s = 0, has_deferred_s = 0;
  int closed = 0;
  int64_t memory_estimate_bytes = 0;
};

ExchangeFigures exchange_figures(const ExchangeSpec& e, const ExchangeRun& x) {
  ExchangeFigures f;
  for (size_t s = 0; s < x.senders.size(); ++s) {
    const SenderCounters& c = x.senders[s];
    f.rpcs += c.TransmitDataRpcs;
    f.eos += c.EosSent;
    f.bytes += c.TotalBytesSent;
    f.rows += c.RowsSent;
    f.dropped += c.RowsDropped;
    f.teardown += c.slots_in_flight_after_teardown;
    f.network_s += c.RpcNetworkTime;
    if (c.InactiveTotalTime > x.senders[static_cast<size_t>(f.slowest)].InactiveTotalTime)
      f.slowest = static_cast<int>(s);
  }
  for (const ReceiverCounters& c : x.receivers) {
    f.deferred += c.TotalRPCsDeferred;
    f.receiver_cpu_s = std::max(f.receiver_cpu_s, c.ConsumerTime + c.DeserializeRowBatchTime);
    f.has_deferred_s = std::max(f.has_deferred_s, c.TotalHasDeferredRPCsTime);
    f.closed += c.closed ? 1 : 0;
  }
  f.memory_estimate_bytes = e.sender.memory_estimate_bytes * e.senders();
  return f;
}

// What K did under an adaptive policy: its time-weighted mean over the channels' lives, the
// largest, and (rpcs_in_flight_series) each channel's change points.
json k_window_json(const ExchangeSpec& e, const ExchangeRun& x, double offset) {
  double area = 0, span = 0;
  int k_max = 0;
  for (const SenderCounters& c : x.senders) {
    area += c.k_area;
    span += c.k_span_s;
    k_max = std::max(k_max, c.k_max);
  }
  json out = {{"policy", to_string(e.sender.window.kind)},
              {"k_start", e.sender.window.initial},
              {"k_cap", e.sender.window.max},
              {"k_mean", span > 0 ? area / span : static_cast<double>(e.sender.window.initial)},
              {"k_max", k_max}};
  if (e.flags.rpcs_in_flight_series) {
    json series = json::array();
    for (size_t s = 0; s < x.senders.size(); ++s)
      for (size_t r = 0; r < x.senders[s].k_series.size(); ++r) {
        json t = json::array(), k = json::array();
        for (const auto& [at, limit] : x.senders[s].k_series[r]) {
          t.push_back(at + offset);
          k.push_back(limit);
        }
        series.push_back({{"sender", s}, {"receiver", r}, {"t_s", t}, {"k", k}});
      }
    out["series"] = series;
  }
  return out;
}

// Times of the entry are on the workload's clock: the run's own plus `offset`.
json exchange_json(const ExchangeSpec& e, const ExchangeRun& x, const ExchangeFigures& f, double offset,
                   const Scenario& sc) {
  json senders = json::array(), receivers = json::array();
  for (size_t s = 0; s < x.senders.size(); ++s)
    senders.push_back(sender_json(x.senders[s], static_cast<int>(s), offset));
  for (size_t r = 0; r < x.receivers.size(); ++r)
    receivers.push_back(receiver_json(x.receivers[r], static_cast<int>(r), offset));
  const double duration = x.end_s - x.start_s;
  const SenderCounters& slow = x.senders.at(static_cast<size_t>(f.slowest));
  const int64_t all_rpcs = f.rpcs + f.eos;
  BoundFigures bf{duration,
                  slow.InactiveTotalTime,
                  slow.CpuTime,
                  f.receiver_cpu_s,
                  f.has_deferred_s,
                  all_rpcs > 0 ? f.network_s / static_cast<double>(all_rpcs) : 0.0,
                  sc.cluster.rtt_us * 1e-6,
                  x.status != ExchangeStatus::ok && f.rpcs == 0};
  json out = {{"id", e.id},
              {"query", e.query},
              {"partitioning", to_string(e.partitioning)},
              {"merging", e.merging},
              {"k", e.sender.k},
              {"k_configured", e.sender.k_configured},
              {"k_reason", e.sender.k_reason},
              {"buffer_bytes", e.flags.data_stream_sender_buffer_size},
              {"duration_s", duration},
              {"senders", e.senders()},
              {"receivers", e.receivers()},
              {"channels", e.senders() * e.receivers()},
              {"slowest_sender", f.slowest},
              {"slowest_sender_blocked_s", slow.InactiveTotalTime},
              {"rpcs", f.rpcs},
              {"eos_rpcs", f.eos},
              {"bytes_sent", f.bytes},
              {"mean_rpc_bytes", f.rpcs > 0 ? static_cast<double>(f.bytes) / static_cast<double>(f.rpcs) : 0.0},
              {"rows_sent", f.rows},
              {"rows_dropped", f.dropped},
              {"rpcs_deferred", f.deferred},
              {"pushed_back", f.deferred > 0},
              {"receivers_closed", f.closed},
              {"slots_in_flight_after_teardown", f.teardown},
              {"bound", to_string(classify_bound(bf))},
              {"memory_estimate_bytes", f.memory_estimate_bytes},
              {"memory_estimate_bytes_per_sender", e.sender.memory_estimate_bytes},
              {"receiver_memory_estimate_bytes",
               receiver_memory_estimate(e.merging, e.senders(), e.flags.exchg_node_buffer_size_bytes) * e.receivers()},
              {"sender_instances", senders},
              {"receiver_instances", receivers}};
  out.update(member_fields(FieldSection::exchange, x, offset)); // its status, error, span and peaks
  if (e.sender.window.adaptive()) out["k_window"] = k_window_json(e, x, offset);
  if (!e.expected_json.empty()) out["expected"] = parse_or_empty(e.expected_json);
  return out;
}

// What a query's entry and the summary both need. Times are on the run's own clock.
struct QueryFigures {
  ExchangeStatus status = ExchangeStatus::ok;
  std::string error;
  double start_s = 0, end_s = 0; // an exchange-only query: the span of its exchanges
  double exchange_span_s = 0;
  Path breakdown;                // an exchange-only query's counts from its first exchange
  bool filter_wait = false;      // the breakdown lists the runtime-filter wait
};

QueryFigures query_figures(const QuerySpec& spec, const QueryRun& q) {
  QueryFigures f;
  // The query fails with its own error, else with the first exchange's that did not end well.
  f.status = q.status;
  f.error = q.error;
  for (const ExchangeRun& x : q.exchanges)
    if (f.status == ExchangeStatus::ok && x.status != ExchangeStatus::ok) {
      f.status = x.status;
      f.error = x.error;
    }
  // The span of its exchanges.
  double start = 0, end = 0;
  bool first = true;
  for (const ExchangeRun& x : q.exchanges) {
    start = first ? x.start_s : std::min(start, x.start_s);
    end = first ? x.end_s : std::max(end, x.end_s);
    first = false;
  }
  f.exchange_span_s = end - start;
  f.breakdown = q.breakdown;
  if (spec.exchange_only) {
    // Its runtime: that span.
    f.start_s = start;
    f.end_s = end;
    f.breakdown.add(PathPart::startup, -start); // its path counts from 0, its span from its first exchange
  } else {
    f.start_s = q.start_s;
    f.end_s = q.end_s;
    f.filter_wait = q.has_runtime_filters;
  }
  return f;
}

// A query's entry; times on the workload's clock.
json query_json(const QuerySpec& spec, const QueryRun& q, const QueryFigures& f) {
  const double offset = q.clock_offset_s;
  json out = {{"query", spec.name},
              {"exchanges", static_cast<int64_t>(spec.exchanges.size())},
              {"start_s", f.start_s + offset},
              {"end_s", f.end_s + offset},
              {"exchange_span_s", f.exchange_span_s},
              {"runtime_s", f.end_s - f.start_s},
              {"status", to_string(f.status)},
              {"error", f.error},
              {"breakdown", path_json(f.breakdown, f.filter_wait)}};
  if (spec.exchange_only) return out;
  json fragments = json::array();
  int64_t passed_before_filters = 0;
  int filter_timeouts = 0;
  for (size_t i = 0; i < spec.fragments.size(); ++i) {
    const FragmentStats& fs = q.fragments[i];
    json fj = member_fields(FieldSection::fragment, fs, offset);
    fj["id"] = spec.fragments[i].id;
    bool filtered = false;
    for (const OpSpec& o : spec.fragments[i].ops)
      filtered = filtered || !o.runtime_filters.empty();
    if (filtered) {
      fj["rows_passed_before_filters"] = fs.rows_passed_before_filters;
      fj["runtime_filter_timeouts"] = fs.runtime_filter_timeouts;
    }
    passed_before_filters += fs.rows_passed_before_filters;
    filter_timeouts += fs.runtime_filter_timeouts;
    fragments.push_back(std::move(fj));
  }
  out["fragments"] = fragments;
  if (q.has_runtime_filters) {
    out["rows_passed_before_filters"] = passed_before_filters;
    out["runtime_filter_timeouts"] = filter_timeouts;
  }
  if (!spec.expected_json.empty()) out["expected"] = parse_or_empty(spec.expected_json);
  return out;
}

} // namespace

json results_document(const Scenario& sc, const WorkloadRun& run) {
  // Exchanges in scenario order, and the summary's totals over them in that order.
  std::vector<const ExchangeSpec*> specs(sc.exchange_count());
  std::vector<const ExchangeRun*> runs(specs.size());
  std::vector<double> offsets(specs.size());
  for (size_t q = 0; q < sc.queries.size(); ++q)
    for (size_t i = 0; i < sc.queries[q].exchanges.size(); ++i) {
      const ExchangeSpec& e = sc.queries[q].exchanges[i];
      const size_t at = static_cast<size_t>(e.index);
      specs.at(at) = &e;
      runs.at(at) = &run.queries.at(q).exchanges.at(i);
      offsets.at(at) = run.queries[q].clock_offset_s;
    }
  json exchanges = json::array();
  int64_t rpcs = 0, eos = 0, bytes = 0, deferred = 0, failed = 0, mem_total = 0;
  int64_t hash_rpcs = 0, hash_bytes = 0, nonpushback_hash = 0;
  double blocked_total = 0, nonpushback_blocked = 0, makespan = 0;
  for (size_t i = 0; i < specs.size(); ++i) {
    const ExchangeSpec& e = *specs[i];
    const ExchangeRun& x = *runs[i];
    const ExchangeFigures f = exchange_figures(e, x);
    exchanges.push_back(exchange_json(e, x, f, offsets[i], sc));
    const double blocked = x.senders.at(static_cast<size_t>(f.slowest)).InactiveTotalTime;
    if (e.partitioning == Partitioning::hash_partitioned) {
      hash_rpcs += f.rpcs;
      hash_bytes += f.bytes;
      if (f.deferred == 0) {
        ++nonpushback_hash;
        nonpushback_blocked += blocked;
      }
    }
    rpcs += f.rpcs;
    eos += f.eos;
    bytes += f.bytes;
    deferred += f.deferred;
    failed += x.status == ExchangeStatus::ok ? 0 : 1;
    mem_total += f.memory_estimate_bytes;
    blocked_total += blocked;
    makespan = std::max(makespan, x.end_s + offsets[i]);
  }
  // Queries in scenario order; the exchanges of no query (an exchange-only query without a name)
  // have no entry.
  json query_list = json::array();
  double runtime_total = 0;
  json breakdown_total = json::object();
  for (size_t q = 0; q < sc.queries.size(); ++q) {
    const QuerySpec& spec = sc.queries[q];
    if (spec.exchange_only && spec.name.empty()) continue;
    const QueryRun& qr = run.queries.at(q);
    const QueryFigures f = query_figures(spec, qr);
    query_list.push_back(query_json(spec, qr, f));
    runtime_total += f.end_s - f.start_s;
    makespan = std::max(makespan, f.end_s + qr.clock_offset_s);
    for (size_t i = 0; i < kPathParts; ++i) {
      const auto part = static_cast<PathPart>(i);
      if (part == PathPart::runtime_filter_wait && !f.filter_wait) continue;
      breakdown_total[path_part_key(part)] = breakdown_total.value(path_part_key(part), 0.0) + f.breakdown.get(part);
    }
  }
  json summary = {{"exchanges", static_cast<int64_t>(exchanges.size())},
                  {"queries", static_cast<int64_t>(query_list.size())},
                  {"runtime_s_total", query_list.empty() ? makespan : runtime_total},
                  {"breakdown_s_total", breakdown_total},
                  {"hash_rpcs", hash_rpcs},
                  {"hash_mean_rpc_bytes",
                   hash_rpcs > 0 ? static_cast<double>(hash_bytes) / static_cast<double>(hash_rpcs) : 0.0},
                  {"nonpushback_hash_exchanges", nonpushback_hash},
                  {"nonpushback_slowest_sender_blocked_s_total", nonpushback_blocked},
                  {"exchanges_failed", failed},
                  {"rpcs", rpcs},
                  {"eos_rpcs", eos},
                  {"bytes_sent", bytes},
                  {"mean_rpc_bytes", rpcs > 0 ? static_cast<double>(bytes) / static_cast<double>(rpcs) : 0.0},
                  {"slowest_sender_blocked_s_total", blocked_total},
                  {"rpcs_deferred", deferred},
                  {"memory_estimate_bytes_total", mem_total},
                  {"makespan_s", makespan}};
  return {{"exsim_version", EXSIM_VERSION},
          {"scenario", {{"name", sc.name}, {"description", sc.description}, {"seed", sc.seed}}},
          {"settings", settings_echo(sc)},
          {"exchanges", std::move(exchanges)},
          {"queries", query_list},
          {"summary", summary}};
}

} // namespace exsim
