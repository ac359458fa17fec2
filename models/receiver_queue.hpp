// The receiver's sender queues and their admission rule (KrpcDataStreamRecvr): a batch that
// does not fit under the receiver's buffer limit, or that arrives while RPCs are already
// deferred on its queue, is deferred (no response yet); a batch is always admitted into an empty
// queue. Non-merging receivers have one queue; merging receivers one per sender, all sharing the
// receiver's one limit (Impala's ExceedsLimit counts the receiver's buffered bytes), so that the
// merger, which needs a batch from every sender, is never starved by a full buffer.
//   exsim::ReceiverQueues q(/*merging=*/false, /*senders=*/5, 10 << 20);
//   if (q.offer(sender, bytes) == exsim::Admission::admit) { ...; q.enqueue(sender, batch); }
//   else q.defer(sender, {rpc_id, sender, bytes});
#pragma once

#include <cstdint>
#include <deque>
#include <optional>
#include <vector>

namespace exsim {

enum class Admission { admit, defer };

struct QueuedBatch {
  int sender = 0;
  int64_t rows = 0;
  int64_t bytes = 0; // accounting size
};

struct DeferredRpc {
  int64_t id = 0; // the engine's handle on the waiting RPC
  int sender = 0;
  int64_t bytes = 0; // accounting size
};

class ReceiverQueues {
public:
  ReceiverQueues(bool merging, int senders, int64_t limit_bytes);

  int queues() const { return static_cast<int>(queues_.size()); }
  int queue_of(int sender) const { return merging_ ? sender : 0; }
  bool merging() const { return merging_; }

  // Decides an arriving batch's fate. On admit, its bytes are reserved until enqueue().
  Admission offer(int sender, int64_t bytes);
  void defer(const DeferredRpc& rpc);
  // A reserved (admitted, deserialized) batch joins its queue.
  void enqueue(const QueuedBatch& batch);

  bool has_batch(int queue) const { return !queues_.at(queue).batches.empty(); }
  QueuedBatch pop(int queue);

  // After a pop: the oldest deferred RPC of `queue` if it now fits; its bytes are reserved.
  std::optional<DeferredRpc> admit_deferred(int queue);
  // Every deferred RPC, removed (used at teardown, when they are answered without data).
  std::vector<DeferredRpc> drain_deferred();

  void end_of_stream(int sender);
  // A queue is finished when all its senders sent end of stream and nothing is left in it.
  bool queue_finished(int queue) const;
  bool all_finished() const;

  int64_t buffered_bytes() const { return buffered_bytes_; }
  int64_t deferred_bytes() const { return deferred_bytes_; }
  int64_t deferred_count() const { return deferred_count_; }

private:
  struct Queue {
    std::deque<QueuedBatch> batches;
    std::deque<DeferredRpc> deferred;
    int pending = 0; // admitted, not yet enqueued
    int senders_open = 0;
  };
  bool can_enqueue(int queue, int64_t bytes) const;

  bool merging_;
  int64_t limit_;
  std::vector<Queue> queues_;
  int64_t buffered_bytes_ = 0;
  int64_t deferred_bytes_ = 0;
  int64_t deferred_count_ = 0;
};

} // namespace exsim
