#include "output/explain.hpp"

#include "models/query/plan.hpp"

#include <fmt/format.h>

namespace exsim {

using nlohmann::json;

namespace {

// A sender's configuration as the sender runs with it (models/exchange/sender_config).
json sender_json(const SenderConfig& c) {
  return {{"k_configured", c.k_configured},
          {"k", c.k},
          {"k_reason", c.k_reason},
          {"window_policy", to_string(c.window.kind)},
          {"window_max", c.window.capacity()},
          {"send_mode", to_string(c.mode)},
          {"collector_rows", c.collector_rows},
          {"planned_batch_bytes", c.planned_batch_bytes},
          {"memory_estimate_bytes", c.memory_estimate_bytes}};
}

const char* op_name(OpKind k) {
  switch (k) {
  case OpKind::scan:
    return "scan";
  case OpKind::exchange:
    return "exchange";
  case OpKind::hash_join:
    return "hash_join";
  case OpKind::nested_loop_join:
    return "nested_loop_join";
  case OpKind::aggregate:
    return "aggregate";
  case OpKind::sort:
    return "sort";
  case OpKind::top_n:
    return "top_n";
  case OpKind::analytic:
    return "analytic";
  case OpKind::select:
    return "select";
  case OpKind::limit:
    return "limit";
  case OpKind::union_all:
    return "union";
  case OpKind::generate:
    return "producer";
  case OpKind::consume:
    return "consumer";
  }
  return "?";
}

std::string op_label(const QuerySpec& q, const FragmentSpec& f, int i) {
  const OpSpec& o = f.ops.at(static_cast<size_t>(i));
  std::string s = fmt::format("{} {}", op_name(o.kind), o.id);
  if (o.kind == OpKind::aggregate) s += o.phase == AggregatePhase::streaming ? " (streaming)" : " (finalize)";
  if (o.kind == OpKind::scan && !o.table.empty()) s += " " + o.table;
  if (o.kind == OpKind::exchange) s = fmt::format("exchange {}", q.exchanges.at(static_cast<size_t>(o.exchange)).id);
  return s;
}

std::string sink_label(const QuerySpec& q, const FragmentSpec& f, const PipelineSpec& p) {
  switch (p.sink) {
  case PipelineSinkKind::blocking_input:
    return "into " + op_label(q, f, p.sink_op);
  case PipelineSinkKind::join_build:
    return "build of " + op_label(q, f, p.sink_op);
  case PipelineSinkKind::fragment:
    break;
  }
  switch (f.sink) {
  case SinkKind::exchange:
    return "send on " + q.exchanges.at(static_cast<size_t>(f.sink_exchange)).id;
  case SinkKind::join_build:
    return "build of " + op_label(q, q.fragments.at(static_cast<size_t>(f.sink_join_fragment)), f.sink_join_op) +
           " in " + q.fragments.at(static_cast<size_t>(f.sink_join_fragment)).id;
  case SinkKind::result:
    return "result";
  }
  return "?";
}

} // namespace

json explain(const Scenario& sc) {
  json queries = json::array();
  for (const QuerySpec& q : sc.queries) {
    json fragments = json::array();
    for (const FragmentSpec& f : q.fragments) {
      const FragmentPlan plan = plan_fragment(f);
      json pipelines = json::array();
      for (const PipelineSpec& p : plan.pipelines) {
        json ops = json::array();
        for (int i : p.ops)
          ops.push_back(op_label(q, f, i));
        json waits = json::array();
        for (int j : p.build_waits)
          waits.push_back(op_label(q, f, j));
        json pj = {{"thread", p.thread},
                   {"source", p.source == SourceKind::blocking_output ? "output of " + op_label(q, f, p.source_op)
                                                                      : op_label(q, f, p.source_op)},
                   {"operators", ops},
                   {"sink", sink_label(q, f, p)},
                   {"waits_for_builds", waits}};
        // Only a filtered scan has the key, so that other plans explain as before.
        if (p.source == SourceKind::scan) {
          json filters = json::array();
          for (const RuntimeFilterSpec& rf : f.ops.at(static_cast<size_t>(p.source_op)).runtime_filters) {
            const FragmentSpec& jf = q.fragments.at(static_cast<size_t>(rf.fragment));
            filters.push_back(fmt::format("{} in {}, keep {}", op_label(q, jf, rf.op), jf.id, rf.keep));
          }
          if (!filters.empty()) pj["waits_for_filters"] = filters;
        }
        pipelines.push_back(std::move(pj));
      }
      json ops = json::array();
      for (size_t i = 0; i < f.ops.size(); ++i) {
        json inputs = json::array();
        for (int c : f.ops[i].inputs)
          inputs.push_back(c);
        json o = {{"index", i}, {"label", op_label(q, f, static_cast<int>(i))}, {"inputs", inputs},
                  {"rows", f.ops[i].rows}};
        if (f.ops[i].build_fragment >= 0)
          o["build_fragment"] = q.fragments.at(static_cast<size_t>(f.ops[i].build_fragment)).id;
        ops.push_back(o);
      }
      fragments.push_back({{"id", f.id},
                           {"executors", f.executors},
                           {"first_executor", f.first_executor},
                           {"instances_per_executor", f.instances_per_executor},
                           {"instances", f.instances()},
                           {"threads_per_instance", plan.threads},
                           {"root", f.root},
                           {"operators", ops},
                           {"pipelines", pipelines}});
    }
    json exchanges = json::array();
    for (const ExchangeSpec& e : q.exchanges)
      exchanges.push_back({{"id", e.id},
                           {"partitioning", to_string(e.partitioning)},
                           {"merging", e.merging},
                           {"from", q.fragments.at(static_cast<size_t>(e.sender_fragment)).id},
                           {"to", q.fragments.at(static_cast<size_t>(e.receiver_fragment)).id},
                           {"senders", e.senders()},
                           {"receivers", e.receivers()},
                           {"channels", static_cast<int64_t>(e.senders()) * e.receivers()},
                           {"k", e.sender.k},
                           {"sender", sender_json(e.sender)}});
    queries.push_back({{"query", q.name},
                       {"exchange_only", q.exchange_only},
                       {"fragments", fragments},
                       {"exchanges", exchanges}});
  }
  return {{"scenario", sc.name}, {"mt_dop", sc.flags.mt_dop}, {"queries", queries}};
}

std::string explain_text(const json& plan) {
  std::string out = fmt::format("scenario {} at mt_dop {}\n", plan.at("scenario").get<std::string>(),
                                plan.at("mt_dop").get<int>());
  for (const json& q : plan.at("queries")) {
    out += fmt::format("\nquery {}\n", q.at("query").get<std::string>().empty() ? std::string("(exchanges without a query)")
                                                                                 : q.at("query").get<std::string>());
    for (const json& f : q.at("fragments")) {
      out += fmt::format("  fragment {}: {} instance(s) ({} per executor on executors {}..{}), {} thread(s) each\n",
                         f.at("id").get<std::string>(), f.at("instances").get<int>(),
                         f.at("instances_per_executor").get<int>(), f.at("first_executor").get<int>(),
                         f.at("first_executor").get<int>() + f.at("executors").get<int>() - 1,
                         f.at("threads_per_instance").get<int>());
      for (const json& p : f.at("pipelines")) {
        std::string chain = p.at("source").get<std::string>();
        for (const json& o : p.at("operators"))
          chain += " -> " + o.get<std::string>();
        chain += " -> " + p.at("sink").get<std::string>();
        std::string waits;
        for (const json& w : p.at("waits_for_builds"))
          waits += (waits.empty() ? "" : ", ") + w.get<std::string>();
        std::string filters;
        if (p.contains("waits_for_filters"))
          for (const json& w : p.at("waits_for_filters"))
            filters += (filters.empty() ? "" : "; ") + w.get<std::string>();
        out += fmt::format("    thread {}: {}{}{}\n", p.at("thread").get<int>(), chain,
                           waits.empty() ? "" : "   (reads once built: " + waits + ")",
                           filters.empty() ? "" : "   (runtime filters: " + filters + ")");
      }
    }
    for (const json& x : q.at("exchanges"))
      out += fmt::format("  exchange {}: {}{} {} -> {}, {} x {} = {} channels, K={}\n", x.at("id").get<std::string>(),
                         x.at("partitioning").get<std::string>(), x.at("merging").get<bool>() ? " merging" : "",
                         x.at("from").get<std::string>(), x.at("to").get<std::string>(), x.at("senders").get<int>(),
                         x.at("receivers").get<int>(), x.at("channels").get<int64_t>(), x.at("k").get<int>());
  }
  return out;
}

} // namespace exsim
