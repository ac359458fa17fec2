#include "models/query/query.hpp"

#include "models/core/round.hpp"
#include "models/exchange/receiver.hpp"
#include "models/exchange/sender.hpp"
#include "models/query/scan.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

namespace exsim {

// Per instance, per operator: what the operator has seen and will emit.
struct QueryRuntime::OpState {
  PathPart part = PathPart::cpu_other;
  double ns_per_row = 0; // CPU per input row
  double ratio = 1;      // output rows per input row
  int64_t in_total = 0;  // rows received so far
  int64_t out_total = 0; // rows emitted so far: round(in_total x ratio), so that nothing drifts
  double limit_left = -1;
  int64_t rows_in = 0;   // blocking: rows consumed
  int64_t out_emit = 0;  // blocking: rows it emits (set when its input ends)
  int64_t out_left = 0;  // blocking: rows still to emit; inline sources: rows still to produce
  double read_per_row = 1; // scans: rows read per output row
  double dropped = 0;      // joins: late rows dropped (models/query/late_rows.hpp)
  RowMix late_in;          // blocking: the late rows among rows_in, then among its output
};

// Runtime filters as Impala runs them (apache/impala at b21595276c6c84161eb3194228df016f120ffc17):
// - a scan's filters are registered when the query starts on its executor (the RuntimeFilterBank
//   is built in QueryState::Init, be/src/runtime/query-state.cc:306 and runtime-filter-bank.cc:80-92,
//   each RuntimeFilter noting its registration_time_, runtime-filter.h:50);
// - the scan waits before issuing its first ranges (hdfs-scan-node.cc:84-92 at its first GetNext,
//   hdfs-scan-node-mt.cc:61 in Open) until every filter arrived or runtime_filter_wait_time_ms
//   passed since registration (scan-node.cc:215-250, runtime-filter.cc:82-92; the daemon flag's
//   default is 1000 ms, scan-node.cc:44, the query option's 0 meaning that default,
//   common/thrift/Query.thrift:257-262);
// - a build's filter goes first to the executor's filter bank: a broadcast join's first build
//   completes it, a partitioned join's every build on that executor (UpdateFilterFromLocal,
//   runtime-filter-bank.cc:328-409); a scan in the join's own fragment (is_local_target,
//   RuntimeFilterGenerator.java:1383-1385) gets it from there at once;
// - with RUNTIME_FILTER_MODE=GLOBAL (the default, Query.thrift:252, Types.thrift:143-153) each
//   executor's complete filter goes to the coordinator, which waits for one update (broadcast) or
//   one per executor (partitioned, coordinator.cc:503-509) and then publishes the filter to the
//   executors of the scans in other fragments (Coordinator::UpdateFilter, coordinator.cc:1617-1720).

// One scan instance's runtime filters: which have arrived, and what it passes meanwhile.
struct QueryRuntime::ScanFilters {
  std::vector<double> keep; // per filter of the scan
  std::vector<int> ids;     // per filter of the scan: its query-wide id
  std::vector<bool> arrived;
  int missing = 0;
  FilterGate gate;
  Waiter waiter; // the fragment thread waiting for them
  Scheduler* sched = nullptr;

  void arrive(size_t k) {
    if (arrived[k]) return;
    arrived[k] = true;
    --missing;
    // From the missing filters alone, so that the factor is exactly 1 once all have arrived.
    double f = 1;
    for (size_t i = 0; i < keep.size(); ++i)
      if (!arrived[i]) f /= keep[i];
    gate.factor = f;
    gate.missing.erase(std::remove(gate.missing.begin(), gate.missing.end(), ids[k]), gate.missing.end());
    waiter.wake(*sched);
  }
  void wake(uint64_t) { waiter.wake(*sched); } // the wait time is up
};

// A join producing runtime filters, and how far its filter has come.
struct QueryRuntime::FilterSource {
  int fragment = 0;
  int op = 0;
  bool broadcast = false;       // every build holds the same rows: the first one is the filter
  bool remote = false;          // some consumer is in another fragment: the filter goes through the coordinator
  std::vector<int> pending;     // by executor: builds not yet ended there
  std::vector<bool> host_done;  // by executor: its filter bank has the complete filter
  int hosts_pending = 0;        // executors the coordinator waits for
  bool published = false;
  std::vector<size_t> consumers; // indices in filter_consumers_
};

struct QueryRuntime::FilterConsumer {
  ScanFilters* scan = nullptr;
  size_t k = 0;      // which of the scan's filters
  int fragment = 0, instance = 0, op = 0;
  int host = 0;
  bool local = false; // in the join's fragment
};

struct QueryRuntime::Instance {
  int fragment = 0;
  int index = 0;
  int host = 0;
  std::vector<std::unique_ptr<SimThread>> threads;
  std::vector<OpState> ops;
  std::unique_ptr<Sender> sender;
  std::vector<std::unique_ptr<ScanNode>> scans;  // by operator (scans at mt_dop=0)
  std::vector<std::unique_ptr<Signal>> builds;   // by operator (joins building in this instance)
  std::vector<std::unique_ptr<ScanFilters>> filters; // by operator (scans with runtime filters)
  Signal build_done;                              // a join-build fragment's instance: built
  RowMix sending;       // late rows: the mix of the batch its sender is routing, and its rows
  int64_t sending_rows = 0;
  std::unique_ptr<CollectorMix> collected; // late rows: those in its sender's collectors
  int threads_live = 0;
  bool started = false;
  bool ended = false;
};

struct QueryRuntime::Fragment {
  const FragmentSpec* spec = nullptr;
  FragmentPlan plan;
  std::vector<std::unique_ptr<Instance>> instances;
  int result_open = 0; // result-sink instances not yet closed
};

QueryRuntime::QueryRuntime(Cluster& c, const QuerySpec& s, const Flags& flags, const OperatorCosts& costs,
                           uint64_t seed)
    : spec(s), cluster_(c), flags_(flags), costs_(costs), seed_(seed) {
  for (size_t i = 0; i < s.exchanges.size(); ++i)
    exchanges.push_back(std::make_unique<ExchangeRuntime>(
        c, s.exchanges[i], seed, stopping_,
        [this, i](ExchangeStatus why, const std::string& reason) { abort(why, reason, static_cast<int>(i)); }));
  for (const FragmentSpec& f : s.fragments) {
    auto fr = std::make_unique<Fragment>();
    fr->spec = &f;
    fr->plan = plan_fragment(f);
    fragments_.push_back(std::move(fr));
  }
  fragment_stats.resize(s.fragments.size());
  for (const FragmentSpec& f : s.fragments)
    for (const OpSpec& o : f.ops)
      if (!o.runtime_filters.empty()) has_runtime_filters = true;
}

QueryRuntime::~QueryRuntime() = default;

void QueryRuntime::start() {
  start_s = cluster_.sched.now();
  cluster_.sched.at(start_s + spec.startup_s, Callback::of<&QueryRuntime::launch>(this));
}

double QueryRuntime::expected_rows(const FragmentSpec& f, int op) const {
  const OpSpec& o = f.ops.at(static_cast<size_t>(op));
  switch (o.kind) {
  case OpKind::exchange: {
    const FragmentSpec& src =
        spec.fragments.at(static_cast<size_t>(spec.exchanges.at(static_cast<size_t>(o.exchange)).sender_fragment));
    return expected_rows(src, src.root);
  }
  case OpKind::generate:
    return static_cast<double>(o.rows_exact);
  case OpKind::consume:
    return expected_rows(f, o.inputs.at(0));
  default:
    return o.rows;
  }
}

// Every instance exists from the launch (so that joins find their builds); each fragment's
// instances start once its dependencies allow and its code is generated.
void QueryRuntime::launch(uint64_t) {
  launched_ = true;
  launch_s_ = cluster_.sched.now();
  const int mt_dop = flags_.mt_dop;
  if (has_runtime_filters) {
    late_built_.resize(fragments_.size());
    for (const ExchangeSpec& x : spec.exchanges)
      late_streams_.emplace_back(static_cast<size_t>(x.receivers()), MixStream(1));
  }
  std::vector<std::vector<int>> filter_ids; // by operator of the fragment: its filters' query-wide ids
  for (size_t fi = 0; fi < fragments_.size(); ++fi) {
    Fragment& fr = *fragments_[fi];
    const FragmentSpec& f = *fr.spec;
    for (int i = 0; i < f.instances(); ++i) {
      auto in = std::make_unique<Instance>();
      in->fragment = static_cast<int>(fi);
      in->index = i;
      in->host = f.host_of(i);
      in->ops.resize(f.ops.size());
      in->scans.resize(f.ops.size());
      in->builds.resize(f.ops.size());
      in->filters.resize(f.ops.size());
      if (i == 0) filter_ids.assign(f.ops.size(), {});
      for (size_t oi = 0; oi < f.ops.size(); ++oi) {
        const OpSpec& o = f.ops[oi];
        OpState& st = in->ops[oi];
        double expected_in = 0;
        const size_t inputs = is_join(o) ? 1 : o.inputs.size();
        for (size_t k = 0; k < inputs; ++k)
          expected_in += expected_rows(f, o.inputs[k]);
        st.ratio = expected_in > 0 ? o.rows / expected_in : (o.rows > 0 ? 1.0 : 0.0);
        switch (o.kind) {
        case OpKind::hash_join:
        case OpKind::nested_loop_join:
          st.part = PathPart::cpu_join_probe;
          st.ns_per_row = costs_.join_probe_ns_per_row;
          if (o.build_fragment < 0) in->builds[oi] = std::make_unique<Signal>();
          break;
        case OpKind::aggregate:
          st.part = PathPart::cpu_aggregate;
          st.ns_per_row = costs_.aggregate_ns_per_row;
          if (o.phase == AggregatePhase::streaming && o.groups > 0 && expected_in > 0) {
            const double per_instance = expected_in / f.instances();
            st.ratio = std::min(per_instance, o.groups) / per_instance;
          }
          break;
        case OpKind::sort:
        case OpKind::top_n:
          st.part = PathPart::cpu_sort;
          st.ns_per_row = costs_.sort_ns_per_row;
          break;
        case OpKind::analytic:
          st.part = PathPart::cpu_analytic;
          st.ns_per_row = costs_.analytic_ns_per_row;
          break;
        case OpKind::consume:
          st.part = PathPart::cpu_other;
          st.ns_per_row = o.ns_per_row * (o.instance_factors.empty() ? 1.0 : o.instance_factors.at(static_cast<size_t>(i)));
          st.ratio = 1;
          break;
        case OpKind::scan: {
          // The instance's share of the scan, by weight, rounded so that the shares add up.
          double before = 0, share = 1.0 / f.instances();
          if (!o.instance_weights.empty()) {
            double sum = 0;
            for (double w : o.instance_weights)
              sum += w;
            for (int k = 0; k < i; ++k)
              before += o.instance_weights[static_cast<size_t>(k)] / sum;
            share = o.instance_weights[static_cast<size_t>(i)] / sum;
          } else {
            before = static_cast<double>(i) / f.instances();
          }
          st.out_left = std::llround(o.rows * (before + share)) - std::llround(o.rows * before);
          st.read_per_row = o.rows > 0 ? std::max(1.0, o.rows_read / o.rows) : 1.0;
          st.part = PathPart::cpu_scan;
          st.ns_per_row = costs_.scan_ns_per_row;
          if (!o.runtime_filters.empty()) {
            auto sf = std::make_unique<ScanFilters>();
            sf->sched = &cluster_.sched;
            if (i == 0)
              for (const RuntimeFilterSpec& rf : o.runtime_filters)
                filter_ids[oi].push_back(new_filter_id(rf));
            sf->ids = filter_ids[oi];
            for (size_t k = 0; k < o.runtime_filters.size(); ++k) {
              const double keep = o.runtime_filters[k].keep;
              sf->keep.push_back(keep);
              sf->gate.factor /= keep;
              if (keep < 1) sf->gate.missing.push_back(sf->ids[k]);
            }
            if (o.rows_read > o.rows) sf->gate.cap = st.read_per_row;
            sf->arrived.assign(o.runtime_filters.size(), false);
            sf->missing = static_cast<int>(o.runtime_filters.size());
            in->filters[oi] = std::move(sf);
          }
          if (mt_dop == 0) {
            const int cap = flags_.num_scanner_threads > 0 ? flags_.num_scanner_threads : cluster_.spec.logical_cpus();
            int threads = cap;
            if (o.scan_ranges > 0)
              threads = static_cast<int>(std::min<int64_t>(cap, (o.scan_ranges + f.instances() - 1) / f.instances()));
            ScanWork w{st.out_left, st.read_per_row, st.ns_per_row, flags_.batch_size};
            if (in->filters[oi]) w.gate = &in->filters[oi]->gate;
            in->scans[oi] = std::make_unique<ScanNode>(cluster_.sched, cluster_.cpu(in->host), stopping_, w, threads,
                                                       5 * cap);
          }
          break;
        }
        case OpKind::generate: {
          const int64_t n = f.instances();
          st.out_left = o.rows_exact / n + (i < o.rows_exact % n ? 1 : 0);
          st.part = PathPart::cpu_other;
          st.ns_per_row = o.ns_per_row;
          break;
        }
        case OpKind::limit:
          st.limit_left = o.limit;
          st.part = PathPart::cpu_other;
          st.ns_per_row = costs_.other_ns_per_row;
          break;
        default:
          st.part = PathPart::cpu_other;
          st.ns_per_row = costs_.other_ns_per_row;
          break;
        }
      }
      if (f.sink == SinkKind::result) fr.result_open++;
      fr.instances.push_back(std::move(in));
      ++live_;
    }
    fragment_stats[fi].instances = f.instances();
  }
  if (has_runtime_filters) setup_runtime_filters();
  for (size_t fi = 0; fi < fragments_.size(); ++fi) {
    releases_.push_back(release(static_cast<int>(fi)));
    releases_.back().start(cluster_.sched, Callback::of<&QueryRuntime::task_ended>(this, releases_.size() - 1));
  }
}

Task QueryRuntime::release(int fi) {
  Fragment& fr = *fragments_[static_cast<size_t>(fi)];
  const FragmentSpec& f = *fr.spec;
  for (int x : f.after_exchanges) {
    co_await exchanges.at(static_cast<size_t>(x))->done.wait();
    if (stopping_) break;
  }
  if (!stopping_) co_await SleepUntil{cluster_.sched, start_s + f.start_s};
  if (stopping_) {
    // Stopped before it started: its instances end without running.
    for (auto& in : fr.instances)
      if (!in->started) instance_done(*in);
    co_return;
  }
  for (size_t x = 0; x < spec.exchanges.size(); ++x)
    if (spec.exchanges[x].sender_fragment == fi || spec.exchanges[x].receiver_fragment == fi)
      exchanges[x]->start_receivers();
  // Code generation: once per fragment per executor, before its instances there start.
  const double codegen_ns = spec.exchange_only ? 0 : costs_.codegen_s_per_fragment * 1e9;
  for (int h = f.first_executor; h < f.first_executor + f.executors; ++h) {
    const uint64_t key = (static_cast<uint64_t>(fi) << 32) | static_cast<uint64_t>(h);
    if (codegen_ns > 0)
      cluster_.cpu(h).start(codegen_ns, Callback::of<&QueryRuntime::start_instances>(this, key));
    else
      start_instances(key);
  }
}

void QueryRuntime::start_instances(uint64_t key) {
  Fragment& fr = *fragments_[static_cast<size_t>(key >> 32)];
  const int host = static_cast<int>(key & 0xffffffffu);
  for (auto& ptr : fr.instances) {
    Instance& in = *ptr;
    if (in.host != host || in.started || in.ended) continue;
    in.started = true;
    if (stopping_) {
      instance_done(in);
      continue;
    }
    for (int t = 0; t < fr.plan.threads; ++t) {
      in.threads.push_back(std::make_unique<SimThread>(cluster_.sched, cluster_.cpu(in.host), stopping_));
      in.threads.back()->origin = start_s;
      // A fragment started `after` exchanges continues the critical path of the last of them to end:
      // their time is theirs (round trips, CPU, backpressure), not the query's startup.
      for (int x : fr.spec->after_exchanges)
        in.threads.back()->adopt(exchanges.at(static_cast<size_t>(x))->end_path);
      in.threads.back()->catch_up(PathPart::startup);
    }
    if (fr.spec->sink == SinkKind::exchange) {
      in.sender = std::make_unique<Sender>(*exchanges.at(static_cast<size_t>(fr.spec->sink_exchange)), in.index,
                                           *in.threads[0]);
      if (!late_streams_.empty()) {
        in.sender->on_routed = [this, &in, x = fr.spec->sink_exchange](int channel, int64_t rows, int64_t held) {
          route_late(in, x, channel, rows, held);
        };
        in.sender->on_batch = [this, &in, x = fr.spec->sink_exchange](int channel, int64_t rows) {
          send_late(in, x, channel, rows);
        };
      }
    }
    in.threads_live = fr.plan.threads;
    for (int t = 0; t < fr.plan.threads; ++t) {
      releases_.push_back(run_thread(in, t));
      releases_.back().start(cluster_.sched, Callback::of<&QueryRuntime::task_ended>(this, releases_.size() - 1));
    }
  }
}

Task QueryRuntime::run_thread(Instance& in, int thread) {
  const Fragment& fr = *fragments_[static_cast<size_t>(in.fragment)];
  SimThread& t = *in.threads[static_cast<size_t>(thread)];
  bool stopped = false;
  try {
    for (const PipelineSpec& p : fr.plan.pipelines)
      if (p.thread == thread) co_await run_pipeline(in, p, t);
  } catch (const Stop&) {
    stopped = true;
  }
  if (stopped && in.sender && thread == 0) co_await in.sender->teardown();
  thread_done(in, thread);
}

Signal& QueryRuntime::build_signal(Instance& in, int join_op) {
  const FragmentSpec& f = *fragments_[static_cast<size_t>(in.fragment)]->spec;
  const OpSpec& j = f.ops.at(static_cast<size_t>(join_op));
  if (j.build_fragment < 0) return *in.builds.at(static_cast<size_t>(join_op));
  Fragment& bf = *fragments_.at(static_cast<size_t>(j.build_fragment));
  const FragmentSpec& b = *bf.spec;
  size_t index = static_cast<size_t>(in.index);
  if (b.instances() != f.instances() || j.shared_build)
    index = static_cast<size_t>((in.host - b.first_executor) * b.instances_per_executor);
  return bf.instances.at(index)->build_done;
}

Task QueryRuntime::run_pipeline(Instance& in, const PipelineSpec& p, SimThread& t) {
  // The probe side reads its first row once every build on its way is done.
  for (int j : p.build_waits) {
    Signal& b = build_signal(in, j);
    if (!b.is_set()) co_await t.flush();
    while (!b.is_set()) {
      co_await b.wait();
      t.check_stop();
    }
    // The build's own path when it finished last: its scans, exchanges and hash table, not a wait.
    t.adopt_then_catch_up(b.path(), PathPart::join_build_wait);
  }
  // A scan with runtime filters waits for them before it reads, until the wait time counted from
  // the query's start on the executor; a filter arriving later applies from then on.
  if (p.source == SourceKind::scan && in.filters[static_cast<size_t>(p.source_op)]) {
    ScanFilters& sf = *in.filters[static_cast<size_t>(p.source_op)];
    const double deadline = launch_s_ + flags_.runtime_filter_wait_time_ms * 1e-3;
    const double from = t.now();
    if (sf.missing > 0 && t.now() < deadline) {
      co_await t.flush();
      if (sf.missing > 0 && t.now() < deadline) {
        cluster_.sched.at(deadline, Callback::of<&ScanFilters::wake>(&sf));
        while (sf.missing > 0 && t.now() < deadline) {
          co_await sf.waiter.wait();
          t.check_stop();
        }
      }
      t.catch_up(PathPart::runtime_filter_wait);
    }
    if (sf.missing > 0) fragment_stats[static_cast<size_t>(in.fragment)].runtime_filter_timeouts++;
    filter_waits.push_back({in.fragment, in.index, p.source_op, from, t.now()});
  }
  const double cpu_before = t.cpu_time_s;
  const int64_t batch = flags_.batch_size;
  int64_t pending = 0;
  RowMix pending_late; // the late rows among pending
  while (true) {
    int64_t rows = 0;
    RowMix late;
    co_await next_rows(in, p, t, rows, late);
    if (rows == 0) break;
    for (int op : p.ops) {
      rows = apply(in, op, rows, late, t);
      if (rows == 0) break;
    }
    // Streaming operators fill their output batches before passing them on.
    pending += rows;
    if (rows > 0) pending_late.add(late);
    while (pending >= batch) {
      RowMix out;
      if (!pending_late.clean()) {
        const double share = static_cast<double>(batch) / static_cast<double>(pending);
        out.add(pending_late, share);
        pending_late.scale(1 - share);
      }
      co_await push(in, p, batch, out, t);
      pending -= batch;
    }
  }
  if (pending > 0) co_await push(in, p, pending, pending_late, t);
  if (p.closes_sink) co_await close_sink(in, p, t);
  if (p.source == SourceKind::exchange) {
    const FragmentSpec& f = *fragments_[static_cast<size_t>(in.fragment)]->spec;
    ExchangeRuntime& x = *exchanges.at(static_cast<size_t>(f.ops.at(static_cast<size_t>(p.source_op)).exchange));
    x.receivers.at(static_cast<size_t>(in.index)).ConsumerTime += t.cpu_time_s - cpu_before;
  }
}

Task QueryRuntime::next_rows(Instance& in, const PipelineSpec& p, SimThread& t, int64_t& rows, RowMix& late) {
  rows = 0;
  t.check_stop();
  const FragmentSpec& f = *fragments_[static_cast<size_t>(in.fragment)]->spec;
  OpState& st = in.ops[static_cast<size_t>(p.source_op)];
  const int64_t batch = flags_.batch_size;
  switch (p.source) {
  case SourceKind::scan:
    if (ScanNode* scan = in.scans[static_cast<size_t>(p.source_op)].get()) {
      co_await t.flush(); // taking a batch frees room a scanner thread may wait for
      co_await scan->next(t, rows);
      if (ScanFilters* sf = in.filters[static_cast<size_t>(p.source_op)].get()) late = sf->gate.take(rows);
      break;
    }
    rows = std::min(st.out_left, batch); // mt_dop > 0: the instance decodes on its own thread
    st.out_left -= rows;
    t.charge(PathPart::cpu_scan, static_cast<double>(rows) * st.read_per_row * st.ns_per_row);
    if (ScanFilters* sf = in.filters[static_cast<size_t>(p.source_op)].get()) {
      rows = sf->gate.pass(rows);
      late = sf->gate.take(rows);
    }
    break;
  case SourceKind::exchange: {
    const OpSpec& o = f.ops.at(static_cast<size_t>(p.source_op));
    Receiver& rx = *exchanges.at(static_cast<size_t>(o.exchange))->receiver_objects.at(static_cast<size_t>(in.index));
    co_await t.flush(); // taking a batch may let a deferred RPC in
    co_await rx.next(t, rows);
    if (!late_streams_.empty())
      late = late_streams_[static_cast<size_t>(o.exchange)][static_cast<size_t>(in.index)].take(
          0, static_cast<double>(rows));
    break;
  }
  case SourceKind::generate:
    rows = std::min(st.out_left, batch);
    st.out_left -= rows;
    t.charge(st.part, static_cast<double>(rows) * st.ns_per_row);
    break;
  case SourceKind::blocking_output:
    rows = std::min(st.out_left, batch);
    st.out_left -= rows;
    if (!st.late_in.clean() && st.out_emit > 0) // its late output, spread over what it emits
      late.add(st.late_in, static_cast<double>(rows) / static_cast<double>(st.out_emit));
    break;
  }
}

int64_t QueryRuntime::apply(Instance& in, int op, int64_t rows, RowMix& late, SimThread& t) {
  const FragmentSpec& f = *fragments_[static_cast<size_t>(in.fragment)]->spec;
  const OpSpec& o = f.ops[static_cast<size_t>(op)];
  OpState& st = in.ops[static_cast<size_t>(op)];
  t.charge(st.part, static_cast<double>(rows) * st.ns_per_row);
  if (o.kind == OpKind::consume) return rows;
  if (o.kind == OpKind::limit) {
    const int64_t out = std::min<int64_t>(rows, static_cast<int64_t>(std::max(0.0, st.limit_left)));
    st.limit_left -= static_cast<double>(out);
    if (!late.clean()) late.scale(static_cast<double>(out) / static_cast<double>(rows));
    return out;
  }
  // A join drops the late rows whose filter it built; its ratio applies to the rest.
  double dropped = 0;
  if (!late.clean() && is_join(o)) {
    const auto& built = late_built_[static_cast<size_t>(in.fragment)];
    if (static_cast<size_t>(op) < built.size()) dropped = late.drop_at(built[static_cast<size_t>(op)]);
  }
  st.in_total += rows;
  st.dropped += dropped;
  const double kept = static_cast<double>(st.in_total) - st.dropped;
  const int64_t target = round_to_int64((st.dropped > 0 ? kept : static_cast<double>(st.in_total)) * st.ratio);
  const int64_t out = std::max<int64_t>(0, target - st.out_total);
  st.out_total += out;
  if (!late.clean()) {
    const double left = static_cast<double>(rows) - dropped;
    late.scale(left > 0 ? static_cast<double>(out) / left : 0);
  }
  return out;
}

Task QueryRuntime::push(Instance& in, const PipelineSpec& p, int64_t rows, const RowMix& late, SimThread& t) {
  const FragmentSpec& f = *fragments_[static_cast<size_t>(in.fragment)]->spec;
  switch (p.sink) {
  case PipelineSinkKind::fragment:
    if (f.sink == SinkKind::exchange) {
      if (!late_streams_.empty()) { // route_late, as the sender routes the batch
        in.sending = late;
        in.sending_rows = rows;
      }
      co_await in.sender->send(rows);
    } else if (f.sink == SinkKind::join_build) {
      t.charge(PathPart::cpu_join_build, static_cast<double>(rows) * costs_.join_build_ns_per_row);
    }
    break;
  case PipelineSinkKind::blocking_input: {
    OpState& st = in.ops[static_cast<size_t>(p.sink_op)];
    t.charge(st.part, static_cast<double>(rows) * st.ns_per_row);
    st.rows_in += rows;
    st.late_in.add(late);
    break;
  }
  case PipelineSinkKind::join_build:
    t.charge(PathPart::cpu_join_build, static_cast<double>(rows) * costs_.join_build_ns_per_row);
    break;
  }
}

Task QueryRuntime::close_sink(Instance& in, const PipelineSpec& p, SimThread& t) {
  Fragment& fr = *fragments_[static_cast<size_t>(in.fragment)];
  const FragmentSpec& f = *fr.spec;
  switch (p.sink) {
  case PipelineSinkKind::fragment:
    if (f.sink == SinkKind::exchange) {
      co_await in.sender->close();
    } else if (f.sink == SinkKind::join_build) {
      co_await t.flush();
      in.build_done.set(cluster_.sched, t.path);
      if (has_runtime_filters) build_finished(f.sink_join_fragment, f.sink_join_op, in.host);
    } else {
      co_await t.flush();
      if (--fr.result_open == 0 && !spec.exchange_only) end_query(t.path);
    }
    break;
  case PipelineSinkKind::blocking_input: {
    OpState& st = in.ops[static_cast<size_t>(p.sink_op)];
    const OpSpec& o = f.ops[static_cast<size_t>(p.sink_op)];
    const auto emits = [&](int64_t rows_in) -> int64_t {
      if (o.kind == OpKind::top_n && o.partitioned)
        return std::min<int64_t>(rows_in,
                                 std::max<int64_t>(1, static_cast<int64_t>(std::ceil(o.rows / f.instances()))));
      if (o.kind == OpKind::top_n && o.limit >= 0) return std::min<int64_t>(rows_in, static_cast<int64_t>(o.limit));
      if (o.kind == OpKind::aggregate && o.groups > 0)
        return std::min<int64_t>(rows_in, static_cast<int64_t>(o.groups));
      return std::llround(static_cast<double>(rows_in) * st.ratio);
    };
    st.out_left = emits(st.rows_in);
    st.out_emit = st.out_left;
    if (!st.late_in.clean()) {
      // Late rows are what it emits beyond what its ordinary rows alone would give (a capped
      // output, groups or a limit, is no larger for them).
      const double late_in = st.late_in.late_rows();
      const int64_t clean = emits(std::max<int64_t>(0, st.rows_in - std::llround(late_in)));
      const double late_out = static_cast<double>(std::max<int64_t>(0, st.out_left - clean));
      st.late_in.scale(late_in > 0 ? late_out / late_in : 0);
    }
    break;
  }
  case PipelineSinkKind::join_build:
    co_await t.flush();
    in.builds.at(static_cast<size_t>(p.sink_op))->set(cluster_.sched, t.path);
    if (has_runtime_filters) build_finished(in.fragment, p.sink_op, in.host);
    break;
  }
}

void QueryRuntime::thread_done(Instance& in, int thread) {
  SimThread& t = *in.threads[static_cast<size_t>(thread)];
  FragmentStats& fs = fragment_stats[static_cast<size_t>(in.fragment)];
  fs.cpu_s += t.cpu_time_s;
  if (--in.threads_live > 0) return;
  for (const auto& scan : in.scans)
    if (scan) fs.cpu_s += scan->scanner_cpu_s();
  for (const auto& sf : in.filters)
    if (sf) fs.rows_passed_before_filters += sf->gate.passed_before_filters();
  const Path last = t.path;
  instance_done(in);
  if (live_ == 0 && !ended_) end_query(last);
}

void QueryRuntime::instance_done(Instance& in) {
  if (in.ended) return;
  in.ended = true;
  in.started = true;
  FragmentStats& fs = fragment_stats[static_cast<size_t>(in.fragment)];
  fs.end_s = std::max(fs.end_s, cluster_.sched.now());
  if (--live_ == 0 && on_finished) cluster_.sched.post(on_finished);
  // A sender that never ran (the query stopped first) still has to end; receivers exist from
  // their exchange's start and end themselves.
  if (in.threads.empty())
    for (size_t x = 0; x < spec.exchanges.size(); ++x)
      if (exchanges[x]->started && spec.exchanges[x].sender_fragment == in.fragment) exchanges[x]->instance_done();
}

void QueryRuntime::task_ended(uint64_t i) {
  if (!failure && releases_[i].error()) failure = releases_[i].error();
}

void QueryRuntime::end_query(const Path& path) {
  if (ended_) return;
  ended_ = true;
  end_s = cluster_.sched.now();
  breakdown = path;
}

void QueryRuntime::abort(ExchangeStatus why, const std::string& reason, int origin) {
  if (stopping_) return;
  stopping_ = true;
  status = why;
  error = reason;
  // The exchange where it happened says why; the rest of the query is cancelled.
  for (size_t x = 0; x < exchanges.size(); ++x)
    if (static_cast<int>(x) == origin)
      exchanges[x]->stop(why, reason);
    else
      exchanges[x]->stop(ExchangeStatus::cancelled, "query failed or was cancelled: " + reason);
  for (auto& fr : fragments_)
    for (auto& in : fr->instances) {
      if (in->sender) in->sender->wake();
      for (auto& scan : in->scans)
        if (scan) scan->wake_all();
      for (auto& b : in->builds)
        if (b) b->wake_all(cluster_.sched);
      in->build_done.wake_all(cluster_.sched);
      for (auto& sf : in->filters)
        if (sf) sf->waiter.wake(cluster_.sched);
    }
  for (auto& x : exchanges)
    x->done.wake_all(cluster_.sched);
}

bool QueryRuntime::is_broadcast_join(int fragment, int join_op) const {
  const FragmentSpec& f = spec.fragments.at(static_cast<size_t>(fragment));
  const OpSpec& j = f.ops.at(static_cast<size_t>(join_op));
  const FragmentSpec* bf = &f;
  int leaf = -1;
  if (j.build_fragment >= 0) {
    bf = &spec.fragments.at(static_cast<size_t>(j.build_fragment));
    leaf = leftmost_leaf(*bf);
  } else {
    leaf = j.inputs.at(1);
    while (!is_leaf(bf->ops.at(static_cast<size_t>(leaf))))
      leaf = bf->ops.at(static_cast<size_t>(leaf)).inputs.at(0);
  }
  const OpSpec& l = bf->ops.at(static_cast<size_t>(leaf));
  return l.kind == OpKind::exchange &&
         traits(spec.exchanges.at(static_cast<size_t>(l.exchange)).partitioning).every_receiver;
}

// The sender routes `rows` of the batch it is sending to `channel`, whose collector held `held`
// rows: they wait there with their share of the batch's late rows.
void QueryRuntime::route_late(Instance& in, int exchange, int channel, int64_t rows, int64_t held) {
  static const RowMix none;
  const RowMix& batch = in.sending_rows > 0 ? in.sending : none;
  const double share = in.sending_rows > 0 ? static_cast<double>(rows) / static_cast<double>(in.sending_rows) : 0;
  if (!in.collected) {
    if (batch.clean(share)) return; // a sender that never routed late rows keeps nothing
    in.collected = std::make_unique<CollectorMix>(spec.exchanges.at(static_cast<size_t>(exchange)).receivers());
  }
  in.collected->route(channel, rows, held, batch, share);
}

// A batch of `rows` leaves for `channel`: that receiver's stream gets it with its late rows.
void QueryRuntime::send_late(Instance& in, int exchange, int channel, int64_t rows) {
  const RowMix m = in.collected ? in.collected->leave(channel, rows) : RowMix{};
  late_streams_[static_cast<size_t>(exchange)][static_cast<size_t>(channel)].put(static_cast<double>(rows), m);
}

int QueryRuntime::new_filter_id(const RuntimeFilterSpec& rf) {
  const int id = late_filters_++;
  auto& built = late_built_.at(static_cast<size_t>(rf.fragment));
  if (built.size() <= static_cast<size_t>(rf.op)) built.resize(static_cast<size_t>(rf.op) + 1);
  built[static_cast<size_t>(rf.op)].push_back(id); // ids grow: the list stays sorted
  return id;
}

void QueryRuntime::setup_runtime_filters() {
  const size_t hosts = static_cast<size_t>(cluster_.spec.executors);
  for (size_t fi = 0; fi < fragments_.size(); ++fi) {
    const FragmentSpec& f = *fragments_[fi]->spec;
    for (auto& in : fragments_[fi]->instances)
      for (size_t oi = 0; oi < f.ops.size(); ++oi) {
        if (!in->filters[oi]) continue;
        const auto& rfs = f.ops[oi].runtime_filters;
        for (size_t k = 0; k < rfs.size(); ++k) {
          // A filter the mode does not assign is never applied: the scan neither waits for it nor
          // removes its rows (RuntimeFilterGenerator.java:1228-1230, 1269-1270).
          const bool local = rfs[k].fragment == static_cast<int>(fi);
          if (flags_.runtime_filter_mode == RuntimeFilterMode::off ||
              (flags_.runtime_filter_mode == RuntimeFilterMode::local && !local)) {
            in->filters[oi]->missing--;
            continue;
          }
          size_t s = 0;
          while (s < filter_sources_.size() &&
                 (filter_sources_[s].fragment != rfs[k].fragment || filter_sources_[s].op != rfs[k].op))
            ++s;
          if (s == filter_sources_.size()) {
            FilterSource src;
            src.fragment = rfs[k].fragment;
            src.op = rfs[k].op;
            src.broadcast = is_broadcast_join(src.fragment, src.op);
            src.pending.assign(hosts, 0);
            src.host_done.assign(hosts, false);
            // The builds: the join's own instances, or those of its join-build fragment.
            const OpSpec& j = spec.fragments[static_cast<size_t>(src.fragment)].ops[static_cast<size_t>(src.op)];
            const FragmentSpec& builder =
                spec.fragments[static_cast<size_t>(j.build_fragment >= 0 ? j.build_fragment : src.fragment)];
            for (int b = 0; b < builder.instances(); ++b)
              if (src.pending[static_cast<size_t>(builder.host_of(b))]++ == 0) src.hosts_pending++;
            filter_sources_.push_back(std::move(src));
          }
          FilterConsumer c;
          c.scan = in->filters[oi].get();
          c.k = k;
          c.fragment = static_cast<int>(fi);
          c.instance = in->index;
          c.op = static_cast<int>(oi);
          c.host = in->host;
          c.local = local;
          if (!c.local) filter_sources_[s].remote = true;
          filter_sources_[s].consumers.push_back(filter_consumers_.size());
          filter_consumers_.push_back(c);
        }
      }
  }
}

// Half a round trip, then the filter's bytes, on the way between two daemons (on one host: its
// loopback path). The filter does not share the NICs with the exchanges' transfers.
double QueryRuntime::filter_hop_s(int from, int to) const {
  const ClusterSpec& c = cluster_.spec;
  const double bits = static_cast<double>(flags_.runtime_bloom_filter_size) * 8;
  const double gbps = cluster_.routes.same_host(from, to) ? c.loopback_bandwidth_gbps : c.nic_bandwidth_gbps;
  return cluster_.routes.one_way_s(from, to) + bits / (gbps * 1e9);
}

void QueryRuntime::build_finished(int fragment, int join_op, int host) {
  for (size_t s = 0; s < filter_sources_.size(); ++s) {
    FilterSource& src = filter_sources_[s];
    if (src.fragment != fragment || src.op != join_op) continue;
    const size_t h = static_cast<size_t>(host);
    if (src.host_done[h]) return; // a broadcast join's later builds add nothing
    if (--src.pending[h] > 0 && !src.broadcast) return;
    src.host_done[h] = true;
    for (size_t c : src.consumers) {
      const FilterConsumer& fc = filter_consumers_[c];
      if (fc.local && fc.host == host) filter_arrived(c);
    }
    if (src.remote)
      cluster_.sched.at(cluster_.sched.now() + filter_hop_s(host, 0),
                        Callback::of<&QueryRuntime::filter_at_coordinator>(this, s));
    return;
  }
}

// An executor's update reaches the coordinator (executor 0).
void QueryRuntime::filter_at_coordinator(uint64_t s) {
  FilterSource& src = filter_sources_[static_cast<size_t>(s)];
  if (src.published) return;
  if (!src.broadcast && --src.hosts_pending > 0) return;
  src.published = true;
  for (size_t c : src.consumers) {
    const FilterConsumer& fc = filter_consumers_[c];
    if (!fc.local)
      cluster_.sched.at(cluster_.sched.now() + filter_hop_s(0, fc.host),
                        Callback::of<&QueryRuntime::filter_arrived>(this, c));
  }
}

void QueryRuntime::filter_arrived(uint64_t c) {
  const FilterConsumer& fc = filter_consumers_[static_cast<size_t>(c)];
  filter_arrivals.push_back({fc.fragment, fc.instance, fc.op, fc.k, cluster_.sched.now()});
  fc.scan->arrive(fc.k);
}

} // namespace exsim
