#include "models/query/workload.hpp"

namespace exsim {

Workload::Workload(Scheduler& s, Network& net, const ClusterSpec& c, const Flags& flags, const OperatorCosts& costs,
                   const std::vector<QuerySpec>& qs, uint64_t seed)
    : cluster(s, c, flags, net) {
  for (const QuerySpec& q : qs)
    queries.push_back(
        std::make_unique<QueryRuntime>(cluster, q, q.flags ? *q.flags : flags, q.costs ? *q.costs : costs, seed));
}

void Workload::start(Callback on_finished) {
  on_finished_ = on_finished;
  for (auto& q : queries) {
    q->on_finished = Callback::of<&Workload::query_finished>(this);
    q->start();
  }
  if (queries.empty() && on_finished_) cluster.sched.post(on_finished_);
}

bool Workload::finished() const {
  for (const auto& q : queries)
    if (!q->finished()) return false;
  return true;
}

void Workload::rethrow_failure() const {
  for (const auto& q : queries)
    if (q->failure) std::rethrow_exception(q->failure);
}

void Workload::query_finished(uint64_t) {
  if (++finished_ == queries.size() && on_finished_) cluster.sched.post(on_finished_);
}

} // namespace exsim
