#include "output/results.hpp"

#include "input/scenario.hpp"
#include "models/bound.hpp"
#include "models/memory.hpp"
#include "models/query.hpp"

#include <algorithm>

namespace exsim {

using nlohmann::json;

namespace {

json sender_json(const SenderCounters& c, int index) {
  return {{"index", index},
          {"host", c.host},
          {"InactiveTotalTime_s", c.InactiveTotalTime},
          {"SerializeBatchTime_s", c.SerializeBatchTime},
          {"CpuTime_s", c.CpuTime},
          {"RpcNetworkTime_s", c.RpcNetworkTime},
          {"RpcRecvrTime_s", c.RpcRecvrTime},
          {"RpcSuccess", c.RpcSuccess},
          {"RpcFailure", c.RpcFailure},
          {"TransmitDataRpcs", c.TransmitDataRpcs},
          {"EosSent", c.EosSent},
          {"TotalBytesSent", c.TotalBytesSent},
          {"UncompressedRowBatchSize", c.UncompressedRowBatchSize},
          {"NetworkThroughput_Bps",
           c.RpcNetworkTime > 0 ? static_cast<double>(c.TotalBytesSent) / c.RpcNetworkTime : 0.0},
          {"RowsSent", c.RowsSent},
          {"RowsDropped", c.RowsDropped},
          {"PeakBytes", c.PeakBytes},
          {"slots_in_flight_after_teardown", c.slots_in_flight_after_teardown},
          {"error", c.error},
          {"end_s", c.end_s}};
}

json receiver_json(const ReceiverCounters& c, int index) {
  return {{"index", index},
          {"host", c.host},
          {"TotalBytesReceived", c.TotalBytesReceived},
          {"TotalBatchesReceived", c.TotalBatchesReceived},
          {"TotalBatchesEnqueued", c.TotalBatchesEnqueued},
          {"TotalRPCsDeferred", c.TotalRPCsDeferred},
          {"DeferredQueueSize", c.DeferredQueueSize},
          {"TotalHasDeferredRPCsTime_s", c.TotalHasDeferredRPCsTime},
          {"DeserializeRowBatchTime_s", c.DeserializeRowBatchTime},
          {"TotalEosReceived", c.TotalEosReceived},
          {"DataWaitTime_s", c.DataWaitTime},
          {"FirstBatchWaitTime_s", c.FirstBatchWaitTime},
          {"TotalBytesDequeued", c.TotalBytesDequeued},
          {"RowsDequeued", c.RowsDequeued},
          {"ConsumerTime_s", c.ConsumerTime},
          {"PeakBytes", c.PeakBytes},
          {"closed", c.closed},
          {"end_s", c.end_s}};
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

} // namespace

json exchange_result(const ExchangeRuntime& x, const Scenario& sc) {
  const ExchangeSpec& e = x.spec;
  int64_t x_rpcs = 0, x_eos = 0, x_bytes = 0, x_rows = 0, x_dropped = 0, x_deferred = 0, x_teardown = 0;
  double net = 0;
  int slowest = 0;
  json senders = json::array(), receivers = json::array();
  for (size_t s = 0; s < x.senders.size(); ++s) {
    const SenderCounters& c = x.senders[s];
    x_rpcs += c.TransmitDataRpcs;
    x_eos += c.EosSent;
    x_bytes += c.TotalBytesSent;
    x_rows += c.RowsSent;
    x_dropped += c.RowsDropped;
    x_teardown += c.slots_in_flight_after_teardown;
    net += c.RpcNetworkTime;
    if (c.InactiveTotalTime > x.senders[static_cast<size_t>(slowest)].InactiveTotalTime)
      slowest = static_cast<int>(s);
    senders.push_back(sender_json(c, static_cast<int>(s)));
  }
  double recv_cpu = 0, has_deferred = 0;
  int closed = 0;
  for (size_t r = 0; r < x.receivers.size(); ++r) {
    const ReceiverCounters& c = x.receivers[r];
    x_deferred += c.TotalRPCsDeferred;
    recv_cpu = std::max(recv_cpu, c.ConsumerTime + c.DeserializeRowBatchTime);
    has_deferred = std::max(has_deferred, c.TotalHasDeferredRPCsTime);
    closed += c.closed ? 1 : 0;
    receivers.push_back(receiver_json(c, static_cast<int>(r)));
  }
  const double duration = x.end_s - x.start_s;
  const SenderCounters& slow = x.senders.at(static_cast<size_t>(slowest));
  const int64_t all_rpcs = x_rpcs + x_eos;
  BoundFigures bf{duration,
                  slow.InactiveTotalTime,
                  slow.CpuTime,
                  recv_cpu,
                  has_deferred,
                  all_rpcs > 0 ? net / static_cast<double>(all_rpcs) : 0.0,
                  sc.cluster.rtt_us * 1e-6,
                  x.status != ExchangeStatus::ok && x_rpcs == 0};
  const int64_t mem_per_sender = e.sender.memory_estimate_bytes;
  json out = {{"id", e.id},
              {"query", e.query},
              {"partitioning", to_string(e.partitioning)},
              {"merging", e.merging},
              {"k", e.sender.k},
              {"k_configured", e.sender.k_configured},
              {"k_reason", e.sender.k_reason},
              {"buffer_bytes", e.flags.data_stream_sender_buffer_size},
              {"status", to_string(x.status)},
              {"error", x.error},
              {"start_s", x.start_s},
              {"end_s", x.end_s},
              {"duration_s", duration},
              {"senders", e.senders()},
              {"receivers", e.receivers()},
              {"channels", e.senders() * e.receivers()},
              {"slowest_sender", slowest},
              {"slowest_sender_blocked_s", slow.InactiveTotalTime},
              {"rpcs", x_rpcs},
              {"eos_rpcs", x_eos},
              {"bytes_sent", x_bytes},
              {"mean_rpc_bytes", x_rpcs > 0 ? static_cast<double>(x_bytes) / static_cast<double>(x_rpcs) : 0.0},
              {"rows_sent", x_rows},
              {"rows_dropped", x_dropped},
              {"rpcs_deferred", x_deferred},
              {"pushed_back", x_deferred > 0},
              {"receivers_closed", closed},
              {"slots_in_flight_after_teardown", x_teardown},
              {"bound", to_string(classify_bound(bf))},
              {"memory_estimate_bytes", mem_per_sender * e.senders()},
              {"memory_estimate_bytes_per_sender", mem_per_sender},
              {"receiver_memory_estimate_bytes",
               receiver_memory_estimate(e.merging, e.senders(), e.flags.exchg_node_buffer_size_bytes) * e.receivers()},
              {"peak_sender_bytes", x.sender_bytes_peak},
              {"peak_receiver_bytes", x.receiver_bytes_peak},
              {"sender_instances", senders},
              {"receiver_instances", receivers}};
  if (!e.expected_json.empty()) out["expected"] = parse_or_empty(e.expected_json);
  return out;
}

json query_result(const QueryRuntime& q, const json& exchanges) {
  const QuerySpec& spec = q.spec;
  if (spec.exchange_only && spec.name.empty()) return nullptr;
  std::string status = to_string(q.status);
  std::string error = q.error;
  for (const json& x : exchanges)
    if (status == "ok" && x.at("status").get<std::string>() != "ok") {
      status = x.at("status").get<std::string>();
      error = x.at("error").get<std::string>();
    }
  Path breakdown = q.breakdown;
  json out = {{"query", spec.name}, {"exchanges", static_cast<int64_t>(spec.exchanges.size())}};
  // The span of its exchanges.
  double start = 0, end = 0;
  bool first = true;
  for (const json& x : exchanges) {
    start = first ? x.at("start_s").get<double>() : std::min(start, x.at("start_s").get<double>());
    end = first ? x.at("end_s").get<double>() : std::max(end, x.at("end_s").get<double>());
    first = false;
  }
  if (spec.exchange_only) {
    // Its runtime: that span.
    breakdown.add(PathPart::startup, -start); // its path counts from 0, its span from its first exchange
    const json b = path_json(breakdown);
    out.update({{"start_s", start},
                {"end_s", end},
                {"exchange_span_s", end - start},
                {"runtime_s", end - start},
                {"status", status},
                {"error", error},
                {"breakdown", b}});
    return out;
  }
  json fragments = json::array();
  int64_t passed_before_filters = 0;
  int filter_timeouts = 0;
  for (size_t f = 0; f < spec.fragments.size(); ++f) {
    const FragmentStats& fs = q.fragment_stats[f];
    json fj = {{"id", spec.fragments[f].id}, {"instances", fs.instances}, {"cpu_s", fs.cpu_s}, {"end_s", fs.end_s}};
    bool filtered = false;
    for (const OpSpec& o : spec.fragments[f].ops)
      filtered = filtered || !o.runtime_filters.empty();
    if (filtered) {
      fj["rows_passed_before_filters"] = fs.rows_passed_before_filters;
      fj["runtime_filter_timeouts"] = fs.runtime_filter_timeouts;
    }
    passed_before_filters += fs.rows_passed_before_filters;
    filter_timeouts += fs.runtime_filter_timeouts;
    fragments.push_back(std::move(fj));
  }
  out.update({{"start_s", q.start_s},
              {"end_s", q.end_s},
              {"exchange_span_s", end - start},
              {"runtime_s", q.end_s - q.start_s},
              {"status", status},
              {"error", error},
              {"breakdown", path_json(breakdown, q.has_runtime_filters)},
              {"fragments", fragments}});
  if (q.has_runtime_filters) {
    out["rows_passed_before_filters"] = passed_before_filters;
    out["runtime_filter_timeouts"] = filter_timeouts;
  }
  if (!spec.expected_json.empty()) out["expected"] = parse_or_empty(spec.expected_json);
  return out;
}

void shift_query(json& query, json& exchanges, double offset) {
  for (json& x : exchanges) {
    x["start_s"] = x.at("start_s").get<double>() + offset;
    x["end_s"] = x.at("end_s").get<double>() + offset;
    for (const char* side : {"sender_instances", "receiver_instances"})
      for (auto& inst : x[side])
        inst["end_s"] = inst.at("end_s").get<double>() + offset;
  }
  if (query.is_null()) return;
  query["start_s"] = query.at("start_s").get<double>() + offset;
  query["end_s"] = query.at("end_s").get<double>() + offset;
  if (query.contains("fragments"))
    for (auto& f : query["fragments"])
      f["end_s"] = f.at("end_s").get<double>() + offset;
}

json assemble_results(const Scenario& sc, json exchanges, json queries) {
  int64_t rpcs = 0, eos = 0, bytes = 0, deferred = 0, failed = 0, mem_total = 0;
  int64_t hash_rpcs = 0, hash_bytes = 0, nonpushback_hash = 0;
  double blocked_total = 0, nonpushback_blocked = 0, makespan = 0;
  for (const json& x : exchanges) {
    const int64_t x_rpcs = x.at("rpcs").get<int64_t>();
    const int64_t x_bytes = x.at("bytes_sent").get<int64_t>();
    const double blocked = x.at("slowest_sender_blocked_s").get<double>();
    const std::string status = x.at("status").get<std::string>();
    if (x.at("partitioning").get<std::string>() == to_string(Partitioning::hash_partitioned)) {
      hash_rpcs += x_rpcs;
      hash_bytes += x_bytes;
      if (!x.at("pushed_back").get<bool>()) {
        ++nonpushback_hash;
        nonpushback_blocked += blocked;
      }
    }
    rpcs += x_rpcs;
    eos += x.at("eos_rpcs").get<int64_t>();
    bytes += x_bytes;
    deferred += x.at("rpcs_deferred").get<int64_t>();
    failed += status == "ok" ? 0 : 1;
    mem_total += x.at("memory_estimate_bytes").get<int64_t>();
    blocked_total += blocked;
    makespan = std::max(makespan, x.at("end_s").get<double>());
  }
  json query_list = json::array();
  double runtime_total = 0;
  json breakdown_total = json::object();
  for (json& q : queries) {
    if (q.is_null()) continue;
    runtime_total += q.at("runtime_s").get<double>();
    makespan = std::max(makespan, q.at("end_s").get<double>());
    for (const auto& [k, v] : q.at("breakdown").items())
      breakdown_total[k] = breakdown_total.value(k, 0.0) + v.get<double>();
    query_list.push_back(std::move(q));
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
          {"settings", sc.settings},
          {"exchanges", std::move(exchanges)},
          {"queries", query_list},
          {"summary", summary}};
}

} // namespace exsim
