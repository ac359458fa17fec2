#include "models/receiver_queue.hpp"

#include <stdexcept>

namespace exsim {

ReceiverQueues::ReceiverQueues(bool merging, int senders, int64_t limit_bytes)
    : merging_(merging), limit_(limit_bytes), queues_(merging ? static_cast<size_t>(senders) : 1) {
  if (senders < 1) throw std::invalid_argument("ReceiverQueues: at least one sender");
  for (auto& q : queues_)
    q.senders_open = merging ? 1 : senders;
}

bool ReceiverQueues::can_enqueue(int queue, int64_t bytes) const {
  const Queue& q = queues_.at(queue);
  const bool empty = q.batches.empty() && q.pending == 0;
  return empty || buffered_bytes_ + bytes <= limit_;
}

Admission ReceiverQueues::offer(int sender, int64_t bytes) {
  const int qi = queue_of(sender);
  Queue& q = queues_.at(qi);
  if (!q.deferred.empty() || !can_enqueue(qi, bytes)) return Admission::defer;
  ++q.pending;
  buffered_bytes_ += bytes;
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
  q.batches.push_back(batch);
}

QueuedBatch ReceiverQueues::pop(int queue) {
  Queue& q = queues_.at(queue);
  if (q.batches.empty()) throw std::logic_error("ReceiverQueues::pop on an empty queue");
  QueuedBatch b = q.batches.front();
  q.batches.pop_front();
  buffered_bytes_ -= b.bytes;
  return b;
}

std::optional<DeferredRpc> ReceiverQueues::admit_deferred(int queue) {
  Queue& q = queues_.at(queue);
  if (q.deferred.empty() || !can_enqueue(queue, q.deferred.front().bytes)) return std::nullopt;
  DeferredRpc rpc = q.deferred.front();
  q.deferred.pop_front();
  deferred_bytes_ -= rpc.bytes;
  --deferred_count_;
  ++q.pending;
  buffered_bytes_ += rpc.bytes;
  return rpc;
}

std::vector<DeferredRpc> ReceiverQueues::drain_deferred() {
  std::vector<DeferredRpc> out;
  for (auto& q : queues_) {
    out.insert(out.end(), q.deferred.begin(), q.deferred.end());
    q.deferred.clear();
  }
  deferred_bytes_ = 0;
  deferred_count_ = 0;
  return out;
}

void ReceiverQueues::end_of_stream(int sender) {
  Queue& q = queues_.at(queue_of(sender));
  if (q.senders_open <= 0) throw std::logic_error("ReceiverQueues::end_of_stream twice for one sender");
  --q.senders_open;
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
