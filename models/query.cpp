#include "models/query.hpp"

#include "models/receiver.hpp"
#include "models/scan.hpp"
#include "models/sender.hpp"

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
  int64_t out_left = 0;  // blocking: rows still to emit; inline sources: rows still to produce
  double read_per_row = 1; // scans: rows read per output row
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
  Signal build_done;                              // a join-build fragment's instance: built
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
  const int mt_dop = flags_.mt_dop;
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
          if (o.streaming && o.groups > 0 && expected_in > 0) {
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
          if (mt_dop == 0) {
            const int cap = flags_.num_scanner_threads > 0 ? flags_.num_scanner_threads : cluster_.spec.logical_cpus();
            int threads = cap;
            if (o.scan_ranges > 0)
              threads = static_cast<int>(std::min<int64_t>(cap, (o.scan_ranges + f.instances() - 1) / f.instances()));
            ScanWork w{st.out_left, st.read_per_row, st.ns_per_row, flags_.batch_size};
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
      in.threads.back()->catch_up(PathPart::startup);
    }
    if (fr.spec->sink == SinkKind::exchange)
      in.sender = std::make_unique<Sender>(*exchanges.at(static_cast<size_t>(fr.spec->sink_exchange)), in.index,
                                           *in.threads[0]);
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
    t.catch_up(PathPart::join_build_wait);
  }
  const double cpu_before = t.cpu_time_s;
  const int64_t batch = flags_.batch_size;
  int64_t pending = 0;
  while (true) {
    int64_t rows = 0;
    co_await next_rows(in, p, t, rows);
    if (rows == 0) break;
    for (int op : p.ops) {
      rows = apply(in, op, rows, t);
      if (rows == 0) break;
    }
    // Streaming operators fill their output batches before passing them on.
    pending += rows;
    while (pending >= batch) {
      co_await push(in, p, batch, t);
      pending -= batch;
    }
  }
  if (pending > 0) co_await push(in, p, pending, t);
  if (p.closes_sink) co_await close_sink(in, p, t);
  if (p.source == SourceKind::exchange) {
    const FragmentSpec& f = *fragments_[static_cast<size_t>(in.fragment)]->spec;
    ExchangeRuntime& x = *exchanges.at(static_cast<size_t>(f.ops.at(static_cast<size_t>(p.source_op)).exchange));
    x.receivers.at(static_cast<size_t>(in.index)).ConsumerTime += t.cpu_time_s - cpu_before;
  }
}

Task QueryRuntime::next_rows(Instance& in, const PipelineSpec& p, SimThread& t, int64_t& rows) {
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
      break;
    }
    rows = std::min(st.out_left, batch); // mt_dop > 0: the instance decodes on its own thread
    st.out_left -= rows;
    t.charge(PathPart::cpu_scan, static_cast<double>(rows) * st.read_per_row * st.ns_per_row);
    break;
  case SourceKind::exchange: {
    const OpSpec& o = f.ops.at(static_cast<size_t>(p.source_op));
    Receiver& rx = *exchanges.at(static_cast<size_t>(o.exchange))->receiver_objects.at(static_cast<size_t>(in.index));
    co_await t.flush(); // taking a batch may let a deferred RPC in
    co_await rx.next(t, rows);
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
    break;
  }
}

int64_t QueryRuntime::apply(Instance& in, int op, int64_t rows, SimThread& t) {
  const FragmentSpec& f = *fragments_[static_cast<size_t>(in.fragment)]->spec;
  const OpSpec& o = f.ops[static_cast<size_t>(op)];
  OpState& st = in.ops[static_cast<size_t>(op)];
  t.charge(st.part, static_cast<double>(rows) * st.ns_per_row);
  if (o.kind == OpKind::consume) return rows;
  if (o.kind == OpKind::limit) {
    const int64_t out = std::min<int64_t>(rows, static_cast<int64_t>(std::max(0.0, st.limit_left)));
    st.limit_left -= static_cast<double>(out);
    return out;
  }
  st.in_total += rows;
  const int64_t target = std::llround(static_cast<double>(st.in_total) * st.ratio);
  const int64_t out = std::max<int64_t>(0, target - st.out_total);
  st.out_total += out;
  return out;
}

Task QueryRuntime::push(Instance& in, const PipelineSpec& p, int64_t rows, SimThread& t) {
  const FragmentSpec& f = *fragments_[static_cast<size_t>(in.fragment)]->spec;
  switch (p.sink) {
  case PipelineSinkKind::fragment:
    if (f.sink == SinkKind::exchange)
      co_await in.sender->send(rows);
    else if (f.sink == SinkKind::join_build)
      t.charge(PathPart::cpu_join_build, static_cast<double>(rows) * costs_.join_build_ns_per_row);
    break;
  case PipelineSinkKind::blocking_input: {
    OpState& st = in.ops[static_cast<size_t>(p.sink_op)];
    t.charge(st.part, static_cast<double>(rows) * st.ns_per_row);
    st.rows_in += rows;
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
      in.build_done.set(cluster_.sched);
    } else {
      co_await t.flush();
      if (--fr.result_open == 0 && !spec.exchange_only) end_query(t.path);
    }
    break;
  case PipelineSinkKind::blocking_input: {
    OpState& st = in.ops[static_cast<size_t>(p.sink_op)];
    const OpSpec& o = f.ops[static_cast<size_t>(p.sink_op)];
    if (o.kind == OpKind::top_n && o.limit >= 0)
      st.out_left = std::min<int64_t>(st.rows_in, static_cast<int64_t>(o.limit));
    else if (o.kind == OpKind::aggregate && o.groups > 0)
      st.out_left = std::min<int64_t>(st.rows_in, static_cast<int64_t>(o.groups));
    else
      st.out_left = std::llround(static_cast<double>(st.rows_in) * st.ratio);
    break;
  }
  case PipelineSinkKind::join_build:
    co_await t.flush();
    in.builds.at(static_cast<size_t>(p.sink_op))->set(cluster_.sched);
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
    }
  for (auto& x : exchanges)
    x->done.wake_all(cluster_.sched);
}

} // namespace exsim
