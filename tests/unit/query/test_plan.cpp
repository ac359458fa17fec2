// Pipelines of a fragment and instance placement (models/query/plan), no SimGrid.
#include "models/query/plan.hpp"

#include <catch2/catch.hpp>

using namespace exsim;

namespace {

// An operator as a scenario's defaults make it: a blocking aggregate, a shared build, no limit.
OpSpec op(OpKind k, const char* id, std::vector<int> inputs = {}) {
  OpSpec o{};
  o.phase = AggregatePhase::finalize;
  o.shared_build = true;
  o.limit = -1;
  o.kind = k;
  o.id = id;
  o.inputs = std::move(inputs);
  return o;
}

// scan(0) -> join(2) <- build exchange(1); join -> aggregate finalize(3): the root.
FragmentSpec join_then_aggregate() {
  FragmentSpec f{};
  f.id = "F";
  f.ops = {op(OpKind::scan, "0"), op(OpKind::exchange, "1"), op(OpKind::hash_join, "2", {0, 1}),
           op(OpKind::aggregate, "3", {2})};
  f.root = 3;
  return f;
}

} // namespace

TEST_CASE("plan: a join builds on its own thread, a blocking operator splits the pipeline", "[unit][plan]") {
  const FragmentPlan p = plan_fragment(join_then_aggregate());
  REQUIRE(p.threads == 2);
  REQUIRE(p.pipelines.size() == 3);
  // Thread 1: the build, from the exchange into the join's hash table.
  CHECK(p.pipelines[0].thread == 1);
  CHECK(p.pipelines[0].source == SourceKind::exchange);
  CHECK(p.pipelines[0].sink == PipelineSinkKind::join_build);
  CHECK(p.pipelines[0].sink_op == 2);
  // Main thread: the aggregate drains scan -> probe while it is opened; the probe waits for the build.
  CHECK(p.pipelines[1].thread == 0);
  CHECK(p.pipelines[1].source == SourceKind::scan);
  CHECK(p.pipelines[1].ops == std::vector<int>{2});
  CHECK(p.pipelines[1].build_waits == std::vector<int>{2});
  CHECK(p.pipelines[1].sink == PipelineSinkKind::blocking_input);
  // Then its output goes to the fragment's sink.
  CHECK(p.pipelines[2].source == SourceKind::blocking_output);
  CHECK(p.pipelines[2].source_op == 3);
  CHECK(p.pipelines[2].sink == PipelineSinkKind::fragment);
}

TEST_CASE("plan: a union reads its inputs one after another and closes its sink once", "[unit][plan]") {
  FragmentSpec f{};
  f.ops = {op(OpKind::scan, "0"), op(OpKind::scan, "1"), op(OpKind::union_all, "2", {0, 1}),
           op(OpKind::select, "3", {2})};
  f.root = 3;
  const FragmentPlan p = plan_fragment(f);
  REQUIRE(p.pipelines.size() == 2);
  CHECK(p.pipelines[0].source_op == 0);
  CHECK(p.pipelines[0].ops == std::vector<int>{2, 3});
  CHECK_FALSE(p.pipelines[0].closes_sink);
  CHECK(p.pipelines[1].source_op == 1);
  CHECK(p.pipelines[1].closes_sink);
}

TEST_CASE("plan: malformed trees are refused", "[unit][plan]") {
  FragmentSpec f{};
  f.ops = {op(OpKind::select, "0", {1}), op(OpKind::select, "1", {0})};
  f.root = 0;
  CHECK_THROWS_AS(plan_fragment(f), PlanError); // a cycle
  FragmentSpec g{};
  g.ops = {op(OpKind::hash_join, "0", {1}), op(OpKind::scan, "1")};
  g.root = 0;
  CHECK_THROWS_AS(plan_fragment(g), PlanError); // a join without its build
}

namespace {

// A fragment of these operators, the first its root's leftmost leaf; it sends on the query's
// exchange `sends` (an index), else returns the result.
FragmentSpec fragment(const char* id, std::vector<OpSpec> ops, int sends = -1) {
  FragmentSpec f{};
  f.id = id;
  f.ops = std::move(ops);
  f.root = static_cast<int>(f.ops.size()) - 1;
  if (sends >= 0) {
    f.sink = SinkKind::exchange;
    f.sink_exchange = sends;
  }
  return f;
}

ExchangeSpec exchange(int from, int to, Partitioning p = Partitioning::hash_partitioned) {
  ExchangeSpec x{};
  x.sender_fragment = from;
  x.receiver_fragment = to;
  x.partitioning = p;
  return x;
}

// F0 scans (ranges given) and sends on x0 to F1 (interior, copies F0), which sends on x1 to the
// coordinator fragment F2 (one instance); F1's join builds in F3, a separate build fragment.
QuerySpec three_shapes(int64_t ranges, bool shared) {
  QuerySpec q;
  FragmentSpec f0 = fragment("F0", {op(OpKind::scan, "0")}, 0);
  f0.ops[0].scan_ranges = ranges;
  FragmentSpec f1 = fragment("F1", {op(OpKind::exchange, "1"), op(OpKind::hash_join, "2", {0})}, 1);
  f1.ops[0].exchange = 0;
  f1.ops[1].build_fragment = 3;
  f1.ops[1].shared_build = shared;
  FragmentSpec f2 = fragment("F2", {op(OpKind::exchange, "3")});
  f2.ops[0].exchange = 1;
  FragmentSpec f3 = fragment("F3", {op(OpKind::scan, "4")});
  f3.sink = SinkKind::join_build;
  f3.sink_join_fragment = 1;
  f3.sink_join_op = 1;
  q.fragments = {f0, f1, f2, f3};
  q.exchanges = {exchange(0, 1), exchange(1, 2, Partitioning::unpartitioned)};
  return q;
}

} // namespace

TEST_CASE("placement: Impala's instance rules for mt_dop 0, 2 and 8", "[unit][plan]") {
  struct Case {
    int mt_dop;
    int64_t ranges;
    bool shared;
    int scan_per_exec, build_per_exec;
  };
  // 5 executors. A scan fragment runs min(mt_dop, ranges per executor) instances per executor
  // (1 at mt_dop 0); the interior fragment copies it; the coordinator fragment runs one; a shared
  // (broadcast) build runs one per executor, a partitioned build one per probe instance.
  for (const Case c : {Case{0, 0, true, 1, 1}, Case{2, 0, true, 2, 1}, Case{8, 0, true, 8, 1},
                       Case{8, 20, true, 4, 1}, Case{8, 0, false, 8, 8}, Case{8, 3, false, 1, 1}}) {
    QuerySpec q = three_shapes(c.ranges, c.shared);
    place_fragments(q, 5, c.mt_dop);
    INFO("mt_dop " << c.mt_dop << ", ranges " << c.ranges << ", shared " << c.shared);
    CHECK(q.fragments[0].executors == 5);
    CHECK(q.fragments[0].instances_per_executor == c.scan_per_exec);
    CHECK(q.fragments[1].instances() == 5 * c.scan_per_exec);
    CHECK(q.fragments[2].instances() == 1);
    CHECK(q.fragments[2].first_executor == 0);
    CHECK(q.fragments[3].instances_per_executor == c.build_per_exec);
    // Channels: every sender instance to every receiver instance.
    CHECK(q.exchanges[0].senders() * q.exchanges[0].receivers() == 25 * c.scan_per_exec * c.scan_per_exec);
    CHECK(q.exchanges[1].senders() * q.exchanges[1].receivers() == 5 * c.scan_per_exec);
  }
}

TEST_CASE("placement: a fragment gathering an unpartitioned exchange runs one instance", "[unit][plan]") {
  // Impala's scheduler gives an unpartitioned fragment one instance, whatever mt_dop, on a host of
  // its input when it is not the root. A hash-partitioned input is copied instead: its executors
  // and its instances per executor.
  for (const Partitioning p : {Partitioning::unpartitioned, Partitioning::hash_partitioned}) {
    QuerySpec q;
    FragmentSpec f0 = fragment("F0", {op(OpKind::scan, "0")}, 0);
    f0.executors = 2;
    f0.first_executor = 3;
    FragmentSpec f1 = fragment("F1", {op(OpKind::exchange, "1")}, 1); // sends on, so not the root
    f1.ops[0].exchange = 0;
    q.fragments = {f0, f1};
    q.exchanges = {exchange(0, 1, p)};
    place_fragments(q, 5, 8);
    const bool gather = p == Partitioning::unpartitioned;
    INFO("gather " << gather);
    CHECK(q.fragments[0].instances() == 16);
    CHECK(q.fragments[1].executors == (gather ? 1 : 2));
    CHECK(q.fragments[1].first_executor == 3);
    CHECK(q.fragments[1].instances_per_executor == (gather ? 1 : 8));
    CHECK(q.exchanges[0].receivers() == (gather ? 1 : 16));
  }
}
