// A query at run time: its fragments' instances placed on the executors, each running its
// pipelines (models/query/plan.hpp) on its threads, with the exchanges between them. The query starts,
// spends its start-up time, codegens each fragment once per executor, then every instance runs;
// it ends when its root fragment has returned its last row (an exchange-only query: when every
// instance has ended). Its breakdown is the critical path of the thread that ended it.
//   exsim::QueryRuntime q(cluster, spec, flags, costs, seed);
//   q.start();            // at the current time; then the Scheduler runs it
#pragma once

#include "models/core/coro.hpp"
#include "models/core/critical_path.hpp"
#include "models/cpu/thread.hpp"
#include "models/daemon/cluster.hpp"
#include "models/exchange/exchange.hpp"
#include "models/query/late_rows.hpp"
#include "models/query/plan.hpp"
#include "models/query/query_spec.hpp"

#include <exception>
#include <memory>
#include <string>
#include <vector>

namespace exsim {

class Sender;
class ScanNode;

// What a fragment's instances did, for the results.
struct FragmentStats {
  int instances = 0;
  double cpu_s = 0;        // CPU time of its threads (scanner threads included)
  double end_s = 0;        // when its last instance ended
  int64_t rows_passed_before_filters = 0; // rows its scans passed only because a runtime filter was missing
  int runtime_filter_timeouts = 0;        // scan instances that started reading with a filter missing
};

class QueryRuntime {
public:
  QueryRuntime(Cluster& c, const QuerySpec& spec, const Flags& flags, const OperatorCosts& costs, uint64_t seed);
  ~QueryRuntime();
  QueryRuntime(const QueryRuntime&) = delete;
  QueryRuntime& operator=(const QueryRuntime&) = delete;

  // Starts the query now.
  void start();
  // Stops the query: every instance is told, in-flight RPCs are answered without data. `origin`
  // is the exchange where it happened (-1: none).
  void abort(ExchangeStatus why, const std::string& reason, int origin = -1);

  const QuerySpec& spec;
  std::vector<std::unique_ptr<ExchangeRuntime>> exchanges;
  std::vector<FragmentStats> fragment_stats;

  bool ended() const { return ended_; }         // its runtime is known
  bool finished() const { return live_ == 0 && launched_; } // every instance has ended
  double start_s = 0;
  double end_s = 0;
  ExchangeStatus status = ExchangeStatus::ok;
  std::string error;
  Path breakdown;
  bool has_runtime_filters = false; // some scan of the query applies runtime filters
  // When each scan instance's filters arrived, and when it began to read (for tests and analysis).
  struct FilterArrival {
    int fragment, instance, op;
    size_t filter;
    double at_s;
  };
  struct FilterWait {
    int fragment, instance, op;
    double from_s, to_s; // its wait before reading (from_s == to_s: none)
  };
  std::vector<FilterArrival> filter_arrivals;
  std::vector<FilterWait> filter_waits;
  // A model bug inside a coroutine (never a user error); the engine rethrows it.
  std::exception_ptr failure;
  // Runs (as an event) when every instance has ended.
  Callback on_finished;

private:
  struct OpState;
  struct Instance;
  struct Fragment;
  struct ScanFilters;
  struct FilterSource;
  struct FilterConsumer;

  void launch(uint64_t);
  Task release(int fragment);
  void start_instances(uint64_t fragment_host);
  Task run_thread(Instance& in, int thread);
  Task run_pipeline(Instance& in, const PipelineSpec& p, SimThread& t);
  Task next_rows(Instance& in, const PipelineSpec& p, SimThread& t, int64_t& rows, RowMix& late);
  int64_t apply(Instance& in, int op, int64_t rows, RowMix& late, SimThread& t);
  Task push(Instance& in, const PipelineSpec& p, int64_t rows, const RowMix& late, SimThread& t);
  Task close_sink(Instance& in, const PipelineSpec& p, SimThread& t);
  Signal& build_signal(Instance& in, int join_op);
  void thread_done(Instance& in, int thread);
  void instance_done(Instance& in);
  void end_query(const Path& path);
  void task_ended(uint64_t task);
  double expected_rows(const FragmentSpec& f, int op) const;
  // Runtime filters: who produces and who consumes each, then their way from builds to scans.
  void setup_runtime_filters();
  int new_filter_id(const RuntimeFilterSpec& rf);
  void route_late(Instance& in, int exchange, int channel, int64_t rows, int64_t held);
  void send_late(Instance& in, int exchange, int channel, int64_t rows);
  bool is_broadcast_join(int fragment, int join_op) const;
  void build_finished(int fragment, int join_op, int host);
  void filter_at_coordinator(uint64_t source);
  void filter_arrived(uint64_t consumer);
  double filter_hop_s(int from, int to) const;

  Cluster& cluster_;
  const Flags flags_;
  const OperatorCosts costs_;
  const uint64_t seed_;
  bool stopping_ = false;
  bool launched_ = false;
  bool ended_ = false;
  int live_ = 0; // instances not yet ended
  std::vector<std::unique_ptr<Fragment>> fragments_;
  std::vector<Task> releases_; // every coroutine of the query: fragment releases and threads
  double launch_s_ = 0;        // when the executors started the query: runtime filters are registered
  std::vector<FilterSource> filter_sources_;
  std::vector<FilterConsumer> filter_consumers_;
  // Late rows (models/query/late_rows.hpp): the scans' filters (query-wide ids), the ids each join
  // builds ([fragment][op]), and what each exchange carries to each receiver (fed by the senders'
  // batches as they leave, so that each receiver's stream holds exactly the rows it gets).
  int late_filters_ = 0;
  std::vector<std::vector<std::vector<int>>> late_built_;
  std::vector<std::vector<MixStream>> late_streams_; // [exchange][receiver]
};

} // namespace exsim
