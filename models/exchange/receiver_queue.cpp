#include "models/exchange/receiver_queue.hpp"

#include <algorithm>
#include <stdexcept>

namespace exsim {

ReceiverQueues::ReceiverQueues(bool merging, int senders, int64_t limit_bytes)
    : merging_(merging), limit_(limit_bytes), queues_(merging ? static_cast<size_t>(senders) : 1),
      active_queues_(static_cast<int>(queues_.size())) {
  if (senders < 1) throw std::invalid_argument("ReceiverQueues: at least one sender");
  for (auto& q : queues_)
    q.senders_open = merging ? 1 : senders;
}

int64_t ReceiverQueues::limit_of(int) const { return merging_ ? limit_ / std::max(1, active_queues_) : limit_; }

bool ReceiverQueues::fits(int queue, int64_t bytes) const {
  const Queue& q = queues_.at(queue);
  const bool empty = q.batches.empty() && q.pending == 0;
  return empty || q.queued_bytes + q.reserved_bytes + bytes <= limit_of(queue);
}

void ReceiverQueues::reserve(int queue, int64_t bytes, bool promoted) {
  Queue& q = queues_.at(queue);
  ++q.pending;
  if (promoted) ++q.promoted_pending;
  q.reserved_bytes += bytes;
  buffered_bytes_ += bytes;
}

Admission ReceiverQueues::offer(int sender, int64_t bytes) {
  const int qi = queue_of(sender);
  if (!queues_.at(qi).deferred.empty() || !fits(qi, bytes)) return Admission::defer;
  reserve(qi, bytes, false);
  return Admission::admit;
}

void ReceiverQueues::defer(const DeferredRpc& rpc) {
  queues_.at(queue_of(rpc.sender)).deferred.push_back(rpc);
  deferred_bytes_ += rpc.bytes;
  ++deferred_count_;
}

void ReceiverQueues::enqueue(const QueuedBatch& batch) {
  Queue& q = queues_.at(queue_of(batch.sender));
  if (q.pending <= 0) throw std::logic_error("ReceiverQueues::enqueue without a reservation");
  --q.pending;
  // Promoted batches are the ones deserialized on the pool; which one finished does not matter
  // for the count, only that one fewer is working for this queue.
  if (q.promoted_pending > q.pending) q.promoted_pending = q.pending;
  q.reserved_bytes -= batch.bytes;
  q.queued_bytes += batch.bytes;
  q.batches.push_back(batch);
}

QueuedBatch ReceiverQueues::pop(int queue) {
  Queue& q = queues_.at(queue);
  if (q.batches.empty()) throw std::logic_error("ReceiverQueues::pop on an empty queue");
  QueuedBatch b = q.batches.front();
  q.batches.pop_front();
  q.queued_bytes -= b.bytes;
  buffered_bytes_ -= b.bytes;
  return b;
}

void ReceiverQueues::promote_deferred(int queue, int max_tasks, std::vector<DeferredRpc>& out) {
  Queue& q = queues_.at(queue);
  while (!q.deferred.empty() && q.promoted_pending < max_tasks && fits(queue, q.deferred.front().bytes)) {
    const DeferredRpc rpc = q.deferred.front();
    q.deferred.pop_front();
    deferred_bytes_ -= rpc.bytes;
    --deferred_count_;
    reserve(queue, rpc.bytes, true);
    out.push_back(rpc);
  }
}

std::vector<DeferredRpc> ReceiverQueues::drain_deferred() {
  std::vector<DeferredRpc> out;
  for (auto& q : queues_) {
    for (size_t i = 0; i < q.deferred.size(); ++i)
      out.push_back(q.deferred[i]);
    q.deferred.clear();
  }
  deferred_bytes_ = 0;
  deferred_count_ = 0;
  return out;
}

void ReceiverQueues::end_of_stream(int sender) {
  Queue& q = queues_.at(queue_of(sender));
  if (q.senders_open <= 0) throw std::logic_error("ReceiverQueues::end_of_stream twice for one sender");
  if (--q.senders_open == 0) --active_queues_;
}

bool ReceiverQueues::queue_finished(int queue) const {
  const Queue& q = queues_.at(queue);
  return q.senders_open == 0 && q.batches.empty() && q.deferred.empty() && q.pending == 0;
}

bool ReceiverQueues::all_finished() const {
  for (int i = 0; i < queues(); ++i)
    if (!queue_finished(i)) return false;
  return true;
}

} // namespace exsim
