#include "models/query/plan.hpp"

#include <algorithm>
#include <fmt/format.h>

namespace exsim {

bool is_blocking(const OpSpec& op) {
  return op.kind == OpKind::sort || op.kind == OpKind::top_n ||
         (op.kind == OpKind::aggregate && op.phase == AggregatePhase::finalize);
}

bool is_leaf(const OpSpec& op) {
  return op.kind == OpKind::scan || op.kind == OpKind::exchange || op.kind == OpKind::generate;
}

bool is_join(const OpSpec& op) { return op.kind == OpKind::hash_join || op.kind == OpKind::nested_loop_join; }

namespace {

class Planner {
public:
  explicit Planner(const FragmentSpec& f) : f_(f), seen_(f.ops.size(), false) {}

  FragmentPlan run() {
    check(f_.root);
    if (std::find(seen_.begin(), seen_.end(), false) != seen_.end()) {
      const size_t i = static_cast<size_t>(std::find(seen_.begin(), seen_.end(), false) - seen_.begin());
      throw PlanError(fmt::format("operator {} (\"{}\") is not reachable from the root", i, f_.ops[i].id));
    }
    open(f_.root, 0);
    stream(f_.root, {}, PipelineSinkKind::fragment, -1, 0, true);
    out_.threads = next_thread_;
    return std::move(out_);
  }

private:
  const OpSpec& op(int i) const { return f_.ops.at(static_cast<size_t>(i)); }

  // Every operator reached once, with the number of inputs its kind needs.
  void check(int i) {
    if (i < 0 || i >= static_cast<int>(f_.ops.size()))
      throw PlanError(fmt::format("operator index {} does not exist", i));
    if (seen_[static_cast<size_t>(i)])
      throw PlanError(fmt::format("operator {} (\"{}\") is reached twice (a cycle or a shared input)", i, op(i).id));
    seen_[static_cast<size_t>(i)] = true;
    const OpSpec& o = op(i);
    const size_t n = o.inputs.size();
    size_t want_min = 1, want_max = 1;
    if (is_leaf(o))
      want_min = want_max = 0;
    else if (is_join(o))
      want_min = want_max = o.build_fragment >= 0 ? 1 : 2;
    else if (o.kind == OpKind::union_all)
      want_min = 1, want_max = static_cast<size_t>(-1);
    if (n < want_min || n > want_max)
      throw PlanError(fmt::format("operator \"{}\" has {} input(s), expected {}", o.id, n,
                                  want_min == want_max ? std::to_string(want_min)
                                                       : fmt::format("at least {}", want_min)));
    for (int c : o.inputs)
      check(c);
  }

  // What Open() does before rows flow: builds start on their own threads, blocking operators drain
  // their inputs on the calling thread.
  void open(int i, int thread) {
    const OpSpec& o = op(i);
    if (is_leaf(o)) return;
    if (is_join(o)) {
      if (o.build_fragment < 0) {
        const int t = next_thread_++;
        open(o.inputs[1], t);
        stream(o.inputs[1], {}, PipelineSinkKind::join_build, i, t, true);
      }
      open(o.inputs[0], thread);
      return;
    }
    if (is_blocking(o)) {
      open(o.inputs[0], thread);
      stream(o.inputs[0], {}, PipelineSinkKind::blocking_input, i, thread, true);
      return;
    }
    for (int c : o.inputs)
      open(c, thread);
  }

  // What GetNext() reads: the pipelines from the sources below `i` through `tail` (operators
  // above `i`, bottom up) into the sink.
  void stream(int i, std::vector<int> tail, PipelineSinkKind sink, int sink_op, int thread, bool closes) {
    const OpSpec& o = op(i);
    if (is_leaf(o) || is_blocking(o)) {
      PipelineSpec p;
      p.source = o.kind == OpKind::scan       ? SourceKind::scan
                 : o.kind == OpKind::exchange ? SourceKind::exchange
                 : o.kind == OpKind::generate ? SourceKind::generate
                                              : SourceKind::blocking_output;
      p.source_op = i;
      p.ops = std::move(tail);
      p.sink = sink;
      p.sink_op = sink_op;
      p.closes_sink = closes;
      p.thread = thread;
      for (int j : p.ops)
        if (is_join(op(j))) p.build_waits.push_back(j);
      out_.pipelines.push_back(std::move(p));
      return;
    }
    tail.insert(tail.begin(), i);
    if (o.kind == OpKind::union_all) {
      for (size_t k = 0; k < o.inputs.size(); ++k)
        stream(o.inputs[k], tail, sink, sink_op, thread, closes && k + 1 == o.inputs.size());
      return;
    }
    stream(o.inputs[0], std::move(tail), sink, sink_op, thread, closes); // streaming or a join's probe
  }

  const FragmentSpec& f_;
  std::vector<bool> seen_;
  FragmentPlan out_;
  int next_thread_ = 1;
};

} // namespace

FragmentPlan plan_fragment(const FragmentSpec& f) { return Planner(f).run(); }

int leftmost_leaf(const FragmentSpec& f) {
  int i = f.root;
  for (size_t steps = 0; steps <= f.ops.size(); ++steps) {
    const OpSpec& o = f.ops.at(static_cast<size_t>(i));
    if (is_leaf(o)) return i;
    if (o.inputs.empty()) break;
    i = o.inputs[0];
  }
  throw PlanError(fmt::format("fragment \"{}\" has no leftmost scan or exchange", f.id));
}

namespace {

void place(QuerySpec& q, size_t i, int executors, int mt_dop, std::vector<int>& state) {
  if (state[i] == 2) return;
  FragmentSpec& f = q.fragments[i];
  if (state[i] == 1) throw PlanError(fmt::format("fragment \"{}\": its placement depends on itself", f.id));
  state[i] = 1;
  auto copy_from = [&](const FragmentSpec& src, bool one_per_executor) {
    if (f.executors == 0) {
      f.executors = src.executors;
      f.first_executor = src.first_executor;
    }
    if (f.instances_per_executor == 0) f.instances_per_executor = one_per_executor ? 1 : src.instances_per_executor;
  };
  if (f.sink == SinkKind::join_build) {
    const size_t probe = static_cast<size_t>(f.sink_join_fragment);
    place(q, probe, executors, mt_dop, state);
    const OpSpec& join = q.fragments[probe].ops.at(static_cast<size_t>(f.sink_join_op));
    copy_from(q.fragments[probe], join.shared_build);
  } else {
    const OpSpec& leaf = f.ops.at(static_cast<size_t>(leftmost_leaf(f)));
    if (leaf.kind == OpKind::exchange) {
      const ExchangeSpec& in = q.exchanges.at(static_cast<size_t>(leaf.exchange));
      const size_t src = static_cast<size_t>(in.sender_fragment);
      place(q, src, executors, mt_dop, state);
      if (in.partitioning == Partitioning::unpartitioned) {
        // A fragment whose leftmost input gathers an unpartitioned exchange is itself unpartitioned
        // (a broadcast feeds a join's build, never the leftmost input): Impala's scheduler runs one
        // instance of it, the root on the coordinator (executor 0), any other on a host of its input.
        if (f.executors == 0) {
          f.executors = 1;
          f.first_executor = f.sink == SinkKind::result ? 0 : q.fragments[src].first_executor;
        }
        if (f.instances_per_executor == 0) f.instances_per_executor = 1;
      } else {
        copy_from(q.fragments[src], false);
      }
    } else {
      if (f.executors == 0) {
        f.executors = executors;
        f.first_executor = 0;
      }
      if (f.instances_per_executor == 0) {
        int n = std::max(1, mt_dop);
        if (mt_dop > 0 && leaf.kind == OpKind::scan && leaf.scan_ranges > 0)
          n = static_cast<int>(std::min<int64_t>(n, (leaf.scan_ranges + f.executors - 1) / f.executors));
        f.instances_per_executor = std::max(1, n);
      }
    }
  }
  state[i] = 2;
}

} // namespace

void place_fragments(QuerySpec& q, int executors, int mt_dop) {
  std::vector<int> state(q.fragments.size(), 0);
  for (size_t i = 0; i < q.fragments.size(); ++i)
    place(q, i, executors, mt_dop, state);
  for (ExchangeSpec& e : q.exchanges) {
    const FragmentSpec& s = q.fragments.at(static_cast<size_t>(e.sender_fragment));
    const FragmentSpec& r = q.fragments.at(static_cast<size_t>(e.receiver_fragment));
    e.sender_executors = s.executors;
    e.sender_first_executor = s.first_executor;
    e.sender_instances_per_executor = s.instances_per_executor;
    e.receiver_executors = r.executors;
    e.receiver_first_executor = r.first_executor;
    e.receiver_instances_per_executor = r.instances_per_executor;
  }
}

} // namespace exsim
