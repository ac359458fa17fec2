// A receiver instance (KrpcDataStreamRecvr and the ExchangeNode above it): admits or defers
// arriving batches, has them deserialized on its daemon's service threads (or, once a deferred
// batch fits, on the daemon's deserialization pool), answers each RPC once its batch is queued,
// and hands batches to the thread that reads the exchange, promoting deferred RPCs as room frees
// up. Event-driven: arrivals and CPU completions are events; the reading thread is a coroutine
// that waits in next() while nothing is queued.
//   Task pipeline() { int64_t rows; co_await rx.next(thread, rows); ... }
#pragma once

#include "models/core/coro.hpp"
#include "models/cpu/thread.hpp"
#include "models/exchange/exchange.hpp"
#include "models/exchange/receiver_queue.hpp"
#include "models/exchange/rpc.hpp"

#include <map>

namespace exsim {

class Receiver {
public:
  Receiver(ExchangeRuntime& x, int index);
  Receiver(const Receiver&) = delete;
  Receiver& operator=(const Receiver&) = delete;

  // A request's payload has arrived (Request::on_arrival; arg: the request); a service thread
  // takes it up `rpc_dispatch_us` later.
  void deliver(uint64_t request);
  // The reading thread takes the next batch: `rows` > 0, or 0 once every sender's stream has
  // ended and been read (or the receiver was closed). Waits while nothing is queued; the waiting
  // thread's path becomes that of the batch it waited for. Throws Stop when the query stops.
  // When it need not wait, it starts no coroutine (the Task it returns is empty).
  Task next(SimThread& t, int64_t& rows) {
    int q = -1;
    if (poll(t, rows, q)) return {};
    return wait_for_batch(t, rows, q);
  }
  // The fragment above stopped reading: later RPCs are answered "receiver closed".
  void close();
  // The query is stopping: everything held is answered without data, the reader is woken.
  void cancel();

  int host() const { return host_; }
  bool ended() const { return ended_; }

private:
  enum class State { running, closed, cancelled };
  double now() const;
  void dispatched(uint64_t request);
  void admit(Request* req, bool deferred);
  void deserialized(uint64_t request);
  void enqueued(Request* req);
  void respond(Request* req, RpcStatus status);
  RpcStatus answer_when_stopped() const;
  void promote(int queue, const Path& reader);
  int wanted_queue();
  bool poll(SimThread& t, int64_t& rows, int& wait_queue);
  Task wait_for_batch(SimThread& t, int64_t& rows, int queue);
  void wake_reader(const Request* cause);
  void end(const Path* path = nullptr); // path: its reader's, when the stream ended
  void stop(State why);
  void note_peak();

  ExchangeRuntime& x_;
  const int index_;
  const int host_;
  ReceiverCounters& c_;
  ReceiverQueues queues_;
  State state_ = State::running;
  bool ended_ = false;
  std::map<int64_t, Request*> deferred_;
  int64_t next_id_ = 0;
  double has_deferred_since_ = 0;
  int cursor_ = 0;
  // The reader.
  Waiter reader_;
  int reader_queue_ = -1;  // the queue it waits on
  Path wake_path_;
  bool wake_path_set_ = false;
  std::vector<DeferredRpc> promoted_;
};

} // namespace exsim
