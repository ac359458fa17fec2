// A fragment's operator tree turned into what its threads run, and fragment instances placed on
// executors by Impala's rules. Pure functions of the typed spec (models/query/query_spec.hpp).
//
// Pipelines: a pipeline reads a source (a scan, an exchange's receiver, the output of a blocking
// operator, an exchange-only producer), passes each batch through streaming operators, and
// hands it to a sink (the fragment's sink, a blocking operator's input, a join's build). Threads
// of one instance run their pipelines one after another, in the order Impala's Open() and
// GetNext() calls reach them: a blocking operator drains its input while it is opened, a join
// builds on its own thread (at mt_dop=0, Impala's "join-build-thread") while the probe side is
// opened, and the probe side reads its first row only once the build is done.
//   exsim::FragmentPlan p = exsim::plan_fragment(fragment);
//   exsim::place_fragments(query, cluster, mt_dop);
#pragma once

#include "models/query/query_spec.hpp"

#include <stdexcept>
#include <string>
#include <vector>

namespace exsim {

class PlanError : public std::runtime_error {
public:
  using std::runtime_error::runtime_error;
};

enum class SourceKind { scan, exchange, generate, blocking_output };
enum class PipelineSinkKind { fragment, blocking_input, join_build };

struct PipelineSpec {
  SourceKind source = SourceKind::scan;
  int source_op = -1;   // the operator read from (the blocking operator for blocking_output)
  std::vector<int> ops; // streaming operators, bottom up
  PipelineSinkKind sink = PipelineSinkKind::fragment;
  int sink_op = -1;     // the blocking operator, or the join whose build this is
  bool closes_sink = true; // false for all but the last input of a union feeding one sink
  std::vector<int> build_waits; // joins on this pipeline whose builds must end before it reads
  int thread = 0;       // 0: the instance's main thread; others: join build threads
};

struct FragmentPlan {
  std::vector<PipelineSpec> pipelines; // in the order each thread runs them
  int threads = 1;
};

bool is_blocking(const OpSpec& op);
bool is_leaf(const OpSpec& op);
bool is_join(const OpSpec& op);

// Throws PlanError on a malformed tree (a cycle, a leaf with inputs, a missing input).
FragmentPlan plan_fragment(const FragmentSpec& f);

// The operator a fragment's instances are placed by: its leftmost leaf.
int leftmost_leaf(const FragmentSpec& f);

// Resolves every fragment's executors (0 = all, or its leftmost input's) and instances per
// executor (0 = Impala's rule for `mt_dop`), then each exchange's sender and receiver placement.
// Throws PlanError when the placement cannot be resolved (a cycle of inputs).
void place_fragments(QuerySpec& q, int executors, int mt_dop);

} // namespace exsim
