#include "input/param_rows.hpp"


#include <fmt/format.h>

namespace exsim::param_rows {

namespace {

// A query (and schema 1's per-query rows).
void add_query_level_rows(std::vector<ParamSpec>& t) {
  using S = Section;
  using T = ParamType;
  const json null;
  const auto none = std::nullopt;
  // Schema 1: queries.<name>.
  t.push_back(only_until(P(S::query_rows, "work_rows", T::integer, "rows", 0, 0, 1e15,
                           "schema 1's work rows of a query (refused with `queries`)"),
                         1, ""));
  t.push_back(only_until(P(S::query_rows, "scan_rows", T::integer, "rows", 0, 0, 1e15,
                           "schema 1's scan rows of a query (refused with `queries`)"),
                         1, ""));

  // Query.
  // The other keys of a query are objects and arrays its parser walks; `expected` is kept as its
  // text, `source` is not read.
  t.push_back(
      binds(required(P(S::query, "name", T::string, "", null, none, none, "unique name of the query")),
            &QuerySpec::name));
  t.push_back(P(S::query, "source", T::string, "", "", none, none, "where this query's plan and rows come from"));
  t.push_back(required(P(S::query, "fragments", T::array, "", null, 1, none,
                         "the fragments of the plan run at mt_dop 0 (and at mt_dop > 0 without `parallel`)")));
  t.push_back(P(S::query, "exchanges", T::array, "", json::array(), none, none, "the exchanges of that plan"));
  t.push_back(P(S::query, "parallel", T::object, "", null, none, none,
                "the plan run at mt_dop > 0: {\"fragments\": [...], \"exchanges\": [...]} (Impala plans "
                "differently then: separate join-build fragments, the planner's mt_dop costing)"));
  t.push_back(P(S::query, "flags", T::object, "", json::object(), none, none,
                "this query's own flags (its query options, such as mt_dop): over the scenario's flags, "
                "under its exchanges' own; `--set` of a flag sets it for every query too"));
  t.push_back(P(S::query, "costs", T::object, "", json::object(), none, none,
                "this query's own costs (its operators' CPU per row as its profile measured them): over the "
                "scenario's costs; `--set` of a cost sets it for every query too"));
  t.push_back(P(S::query, "expected", T::object, "", json::object(), none, none,
                "measured values to compare with (e.g. runtime_s); copied to the results"));
  t.push_back(required(P(S::plan, "fragments", T::array, "", null, 1, none, "the fragments of the plan")));
  t.push_back(P(S::plan, "exchanges", T::array, "", json::array(), none, none, "the exchanges of the plan"));
}

// A fragment.
void add_fragment_rows(std::vector<ParamSpec>& t) {
  using S = Section;
  using T = ParamType;
  const json null;
  const auto none = std::nullopt;
  // Fragment. `source` is not read; `root` and `sink` are the tree and a reference the parser
  // walks; the placement's zeros are resolved by models/query/plan.
  t.push_back(
      binds(required(P(S::fragment, "id", T::string, "", null, none, none, "unique name in the query")),
            &FragmentSpec::id));
  t.push_back(P(S::fragment, "source", T::string, "", "", none, none, "where this fragment comes from"));
  t.push_back(
      binds(derived(P(S::fragment, "executors", T::integer, "hosts", 0, 0, 1000,
                      "executors running its instances; 0 = those of its leftmost input (all for a scan; a "
                      "join-build fragment: its join's; one when that input gathers an UNPARTITIONED exchange)"),
                    "Impala's placement"),
            &FragmentSpec::executors));
  t.push_back(
      binds(P(S::fragment, "first_executor", T::integer, "index", 0, 0, 999,
              "its instances run on executors first..first+executors-1 (executor 0 is the coordinator)"),
            &FragmentSpec::first_executor));
  t.push_back(
      binds(derived(P(S::fragment, "instances_per_executor", T::integer, "instances", 0, 0, 1024,
                      "instances per executor; 0 = Impala's rule: 1 at mt_dop 0; at mt_dop N a fragment whose "
                      "leftmost leaf is a scan runs min(N, ceil(scan_ranges / executors)); one gathering an "
                      "UNPARTITIONED exchange on its leftmost leaf runs one (it is unpartitioned), any other "
                      "copies the fragment feeding its leftmost exchange; a join-build fragment runs one per "
                      "executor when its join is `shared` (broadcast), else one per probe instance"),
                    "1 at mt_dop 0; min(mt_dop, scan ranges per executor) for a scan; its leftmost input's"),
            &FragmentSpec::instances_per_executor));
  t.push_back(required(P(S::fragment, "root", T::object, "", null, none, none, "its operator tree")));
  t.push_back(required(P(S::fragment, "sink", T::object, "", null, none, none,
                         "where its rows go: {\"exchange\": id}, {\"result\": true} or {\"join_build\": join id}")));
  t.push_back(P(S::sink, "exchange", T::string, "", null, none, none, "sends its rows on this exchange"));
  t.push_back(P(S::sink, "result", T::boolean, "", null, none, none, "returns the query's rows (the root)"));
  t.push_back(P(S::sink, "join_build", T::string, "", null, none, none,
                "builds the hash table of the join with this id (a join-build fragment)"));
}

// An operator.
void add_op_rows(std::vector<ParamSpec>& t) {
  using S = Section;
  using T = ParamType;
  const json null;
  const auto none = std::nullopt;
  // Operators. Which keys an operator's kind takes is op_keys() in input/query_form.cpp; every
  // bound member is set whatever the kind (a key the kind does not take is refused, so there the
  // row's default stands). `source` is not read; `runtime_filters`, `exchange`, `input`, `inputs`,
  // `probe` and `build` are references and the tree, which the parser resolves.
  t.push_back(binds(required(choices(P(S::op, "op", T::enumeration, "", null, none, none, "the operator"),
                                     {"scan", "exchange", "hash_join", "nested_loop_join", "aggregate",
                                      "sort", "top_n", "analytic", "select", "limit", "union"})),
                    &OpSpec::kind));
  t.push_back(binds(
      required(P(S::op, "id", T::string, "", null, none, none, "the plan node id, unique in the query")),
      &OpSpec::id));
  t.push_back(P(S::op, "source", T::string, "", "", none, none, "where this operator's rows come from"));
  // Required by the parser for every kind but an exchange, which outputs what it receives.
  t.push_back(
      binds(derived(P(S::op, "rows", T::number, "rows", null, 0, 1e15,
                      "rows it outputs over all instances, as the plan estimates (required except on an "
                      "exchange)"),
                    "required"),
            &OpSpec::rows));
  t.push_back(binds(P(S::op, "table", T::string, "", "", none, none, "scan: the table"), &OpSpec::table));
  // A scan without it reads `rows` (set by the parser).
  t.push_back(binds(
      derived(P(S::op, "rows_read", T::number, "rows", null, 0, 1e15, "scan: rows read before predicates"),
              "rows"),
      &OpSpec::rows_read));
  t.push_back(
      binds(P(S::op, "scan_ranges", T::integer, "ranges", 0, 0, 1e12,
              "scan: ranges (files) it reads; bounds the instances at mt_dop > 0 and the scanner threads; "
              "0 = no bound"),
            &OpSpec::scan_ranges));
  // Absent: empty, which the scan reads as an even share.
  t.push_back(binds(
      derived(exclusive_min(P(S::op, "instance_weights", T::number_array, "relative", null, 0, kMaxWeight,
                              "scan: share of its rows per instance (skew); one positive number per "
                              "instance")),
              "even"),
      &OpSpec::instance_weights));
  t.push_back(P(S::op, "runtime_filters", T::array, "", null, none, none,
                "scan: the runtime filters it applies, [{\"join\": join id, \"keep\": fraction of its rows "
                "kept}]; `rows` counts them all applied"));
  t.push_back(P(S::op, "exchange", T::string, "", null, none, none, "exchange: the id of the exchange it reads"));
  t.push_back(P(S::op, "input", T::object, "", null, none, none, "the input of a unary operator"));
  t.push_back(P(S::op, "inputs", T::array, "", null, 1, none, "union: its inputs, read one after another"));
  t.push_back(P(S::op, "probe", T::object, "", null, none, none, "join: the probe side"));
  t.push_back(P(S::op, "build", T::object, "", null, none, none,
                "join: the build side, an operator in this fragment or {\"fragment\": id} of a join-build "
                "fragment"));
  t.push_back(
      binds(derived(P(S::op, "shared", T::boolean, "", null, none, none,
                      "join with a build fragment: one build per executor serves every probe instance "
                      "there (broadcast), else build instance i serves probe instance i"),
                    "true"),
            &OpSpec::shared_build, true));
  t.push_back(
      binds(choices(P(S::op, "phase", T::enumeration, "", "finalize", none, none,
                      "aggregate: streaming (a pre-aggregation: passes batches on) or finalize (blocking)"),
                    {"streaming", "finalize"}),
            &OpSpec::phase));
  t.push_back(binds(P(S::op, "groups", T::number, "rows", 0, 0, 1e15,
                      "aggregate: it outputs at most this many rows per instance (its groups); 0 = no bound"),
                    &OpSpec::groups));
  // Absent: -1, no limit (the parser requires it of limit, and of top_n unless partitioned).
  t.push_back(binds(derived(P(S::op, "limit", T::number, "rows", null, 0, 1e15,
                              "top_n and limit: rows per instance at most"),
                            "required for top_n and limit"),
                    &OpSpec::limit, -1));
  t.push_back(
      binds(P(S::op, "partitioned", T::boolean, "", false, none, none,
              "top_n: a partitioned top-n (a `partition limit` in Impala's plan, which keeps that many "
              "rows per partition key): each instance outputs at most its share of `rows`, "
              "ceil(rows / instances), at least one; it then takes no `limit`"),
            &OpSpec::partitioned));
}

} // namespace

void add_query_rows(std::vector<ParamSpec>& t) {
  add_query_level_rows(t);
  add_fragment_rows(t);
  add_op_rows(t);
}

} // namespace exsim::param_rows
