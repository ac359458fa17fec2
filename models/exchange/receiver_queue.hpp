// The receiver's sender queues and their admission rule (KrpcDataStreamRecvr at the snapshot of
// the plans, after IMPALA-13475: read at apache/impala b21595276c, which contains that change as
// 536f7c6ce; the merging receiver's limit moved from one pool per receiver to a share per
// queue there). Non-merging receivers have one queue for all senders, limited
// by the receiver's buffer; merging receivers one queue per sender, each limited to the buffer
// divided by the queues whose sender has not yet ended its stream. A batch is deferred (no
// response yet) when its queue already holds deferred RPCs, or when it does not fit: it fits
// when the queue is truly empty (nothing queued, nothing being deserialized) or when the queue's
// queued and reserved bytes plus the batch stay under the queue's limit. After the consumer pops a
// batch, deferred RPCs are promoted in order while they fit and fewer than the deserialization
// pool's threads are working for the queue.
//   exsim::ReceiverQueues q(/*merging=*/false, /*senders=*/5, 10 << 20);
//   if (q.offer(sender, bytes) == exsim::Admission::admit) { ...; q.enqueue(batch); }
//   else q.defer({rpc_id, sender, bytes});
#pragma once

#include "models/core/ring.hpp"

#include <cstdint>
#include <vector>

namespace exsim {

enum class Admission { admit, defer };

struct QueuedBatch {
  int sender = 0;
  int64_t rows = 0;
  int64_t bytes = 0; // accounting size
};

struct DeferredRpc {
  int64_t id = 0; // the owner's handle on the waiting RPC
  int sender = 0;
  int64_t bytes = 0; // accounting size
};

class ReceiverQueues {
public:
  ReceiverQueues(bool merging, int senders, int64_t limit_bytes);

  int queues() const { return static_cast<int>(queues_.size()); }
  int queue_of(int sender) const { return merging_ ? sender : 0; }
  bool merging() const { return merging_; }
  // The queue's share of the buffer now.
  int64_t limit_of(int queue) const;

  // Decides an arriving batch's fate. On admit its bytes are reserved until enqueue().
  Admission offer(int sender, int64_t bytes);
  void defer(const DeferredRpc& rpc);
  // A reserved (admitted or promoted, then deserialized) batch joins its queue.
  void enqueue(const QueuedBatch& batch);

  bool has_batch(int queue) const { return !queues_.at(queue).batches.empty(); }
  // The consumer takes the oldest batch; its bytes stop counting at once.
  QueuedBatch pop(int queue);

  // After a pop: appends to `out` the deferred RPCs of `queue` promoted now (their bytes are
  // reserved), in order, while they fit and fewer than `max_tasks` promoted batches of the queue
  // are still being deserialized.
  void promote_deferred(int queue, int max_tasks, std::vector<DeferredRpc>& out);
  // Every deferred RPC, removed (at teardown, when they are answered without data).
  std::vector<DeferredRpc> drain_deferred();

  void end_of_stream(int sender);
  // A queue is finished when all its senders sent end of stream and nothing is left in it.
  bool queue_finished(int queue) const;
  bool all_finished() const;

  int64_t buffered_bytes() const { return buffered_bytes_; } // queued and reserved, all queues
  int64_t deferred_bytes() const { return deferred_bytes_; }
  int64_t deferred_count() const { return deferred_count_; }

private:
  struct Queue {
    Ring<QueuedBatch> batches;
    Ring<DeferredRpc> deferred;
    int64_t queued_bytes = 0;
    int64_t reserved_bytes = 0; // admitted or promoted, not yet enqueued
    int pending = 0;            // batches reserved, not yet enqueued
    int promoted_pending = 0;   // of which promoted from deferred (deserialization pool tasks)
    int senders_open = 0;
  };
  bool fits(int queue, int64_t bytes) const;
  void reserve(int queue, int64_t bytes, bool promoted);

  bool merging_;
  int64_t limit_;
  std::vector<Queue> queues_;
  int active_queues_;
  int64_t buffered_bytes_ = 0;
  int64_t deferred_bytes_ = 0;
  int64_t deferred_count_ = 0;
};

} // namespace exsim
