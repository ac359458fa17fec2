#include "models/exchange/receiver.hpp"

#include "models/daemon/cluster.hpp"
#include "models/exchange/cost.hpp"

#include <algorithm>

namespace exsim {

Receiver::Receiver(ExchangeRuntime& x, int index)
    : x_(x), index_(index), host_(x.spec.receiver_host(index)), c_(x.receivers.at(static_cast<size_t>(index))),
      queues_(x.spec.merging, x.spec.senders(), x.spec.flags.exchg_node_buffer_size_bytes) {
  c_.host = host_;
  c_.start_s = now();
}

double Receiver::now() const { return x_.cluster.sched.now(); }

// KRPC hands an arrived call to the service queue and a worker wakes: rpc_dispatch_us later a
// service thread starts on it (a wait for a free thread comes after, in admit()).
void Receiver::deliver(uint64_t request) {
  const double dispatch_s = x_.cluster.spec.rpc_dispatch_us * 1e-6;
  if (dispatch_s > 0) {
    x_.cluster.sched.after(dispatch_s, Callback::of<&Receiver::dispatched>(this, request));
    return;
  }
  dispatched(request);
}

void Receiver::dispatched(uint64_t request) {
  Request* req = reinterpret_cast<Request*>(request);
  req->dispatched_at = now();
  if (req->kind == RequestKind::eos) {
    c_.TotalEosReceived++;
    req->admitted_at = req->enqueued_at = now();
    if (state_ != State::running) {
      respond(req, answer_when_stopped());
      return;
    }
    queues_.end_of_stream(req->sender);
    const int q = queues_.queue_of(req->sender);
    respond(req, RpcStatus::ok);
    if (reader_.waiting() && (reader_queue_ == q || reader_queue_ < 0) && queues_.queue_finished(q))
      wake_reader(req);
    return;
  }
  c_.TotalBatchesReceived++;
  c_.TotalBytesReceived += req->wire_bytes;
  if (state_ != State::running) {
    req->admitted_at = req->enqueued_at = now();
    respond(req, answer_when_stopped());
    return;
  }
  if (queues_.offer(req->sender, req->accounting_bytes) == Admission::admit) {
    x_.add_receiver_bytes(req->accounting_bytes);
    admit(req, false);
    return;
  }
  if (queues_.deferred_count() == 0) has_deferred_since_ = now();
  c_.TotalRPCsDeferred++;
  const int64_t id = next_id_++;
  deferred_[id] = req;
  queues_.defer({id, req->sender, req->accounting_bytes});
  x_.add_receiver_bytes(req->accounting_bytes);
  c_.DeferredQueueSize = std::max(c_.DeferredQueueSize, queues_.deferred_count());
  note_peak();
}

RpcStatus Receiver::answer_when_stopped() const {
  return state_ == State::closed ? RpcStatus::receiver_closed : RpcStatus::cancelled;
}

// An admitted batch is deserialized (on a service thread when admitted on arrival, on the
// deserialization pool when it had been deferred), then queued, then its RPC is answered.
void Receiver::admit(Request* req, bool deferred) {
  req->admitted_at = now();
  const double ns = deserialize_ns(x_.spec.costs, req->uncompressed_bytes, req->compressed);
  if (!(ns > 0)) {
    enqueued(req);
    return;
  }
  ThreadPool& pool = deferred ? x_.cluster.deserialization_threads(host_) : x_.cluster.service_threads(host_);
  pool.submit(ns, Callback::of<&Receiver::deserialized>(this, reinterpret_cast<uint64_t>(req)),
              &req->deserializing_at);
}

void Receiver::deserialized(uint64_t request) {
  Request* req = reinterpret_cast<Request*>(request);
  c_.DeserializeRowBatchTime += now() - req->deserializing_at;
  if (state_ != State::running) {
    respond(req, answer_when_stopped()); // its reservation went with the stop
    return;
  }
  enqueued(req);
}

void Receiver::enqueued(Request* req) {
  req->enqueued_at = now();
  queues_.enqueue({req->sender, req->rows, req->accounting_bytes});
  c_.TotalBatchesEnqueued++;
  note_peak();
  const int q = queues_.queue_of(req->sender);
  if (reader_.waiting() && reader_queue_ == q) wake_reader(req);
  respond(req, RpcStatus::ok);
}

// The response costs the route latency back to the sender; it carries no payload.
void Receiver::respond(Request* req, RpcStatus status) {
  req->status = status;
  req->responded_at = now();
  if (req->enqueued_at < req->admitted_at) req->enqueued_at = req->admitted_at;
  const int to = x_.spec.sender_host(req->sender);
  x_.cluster.sched.after(x_.cluster.routes.one_way_s(host_, to), req->on_response);
}

void Receiver::wake_reader(const Request* cause) {
  wake_path_ = cause->path_at(now());
  wake_path_set_ = true;
  reader_.wake(x_.cluster.sched);
}

// The merger pulls from specific sender queues in turn; a non-merging reader has one queue.
int Receiver::wanted_queue() {
  if (!queues_.merging()) return queues_.queue_finished(0) ? -1 : 0;
  for (int i = 0; i < queues_.queues(); ++i) {
    const int q = (cursor_ + i) % queues_.queues();
    if (!queues_.queue_finished(q)) {
      cursor_ = q;
      return q;
    }
  }
  return -1;
}

// One look at the queues: true when the reader is done (a batch taken, or the stream over with 0
// rows); false when queue `wait_queue` has nothing yet.
bool Receiver::poll(SimThread& t, int64_t& rows, int& wait_queue) {
  rows = 0;
  if (state_ == State::cancelled) throw Stop{};
  t.check_stop();
  if (state_ == State::closed) return true;
  const int q = wanted_queue();
  if (q < 0) {
    end(&t.path);
    return true;
  }
  if (queues_.has_batch(q)) {
    const QueuedBatch b = queues_.pop(q);
    if (c_.TotalBytesDequeued == 0) c_.FirstBatchWaitTime = now() - c_.start_s;
    c_.TotalBytesDequeued += b.bytes;
    c_.RowsDequeued += b.rows;
    x_.add_receiver_bytes(-b.bytes);
    if (queues_.merging()) cursor_ = (q + 1) % queues_.queues();
    promote(q, t.path);
    rows = b.rows;
    return true;
  }
  wait_queue = q;
  return false;
}

// Queue `q` had nothing: the reader waits until a batch arrives or the stream ends, and looks again.
Task Receiver::wait_for_batch(SimThread& t, int64_t& rows, int q) {
  do {
    const double t0 = now();
    reader_queue_ = q;
    wake_path_set_ = false;
    co_await reader_.wait();
    reader_queue_ = -1;
    c_.DataWaitTime += now() - t0;
    if (wake_path_set_)
      t.adopt_then_catch_up(wake_path_, PathPart::rtt);
    else
      t.catch_up(PathPart::rtt);
  } while (!poll(t, rows, q));
}

// The reader took a batch: deferred RPCs that now fit are let in. What let them in is the reader's
// progress, so the critical path through them is the reader's (a reader slow to compute shows as
// its CPU, one waiting for a join build as that wait), not the time they spent deferred.
void Receiver::promote(int queue, const Path& reader) {
  if (queues_.deferred_count() == 0) return;
  promoted_.clear();
  queues_.promote_deferred(queue, x_.cluster.deserialization_threads(host_).threads(), promoted_);
  SharedPath path;
  for (const DeferredRpc& d : promoted_) {
    Request* req = deferred_.at(d.id);
    deferred_.erase(d.id);
    req->path = share(path, reader);
    req->path_time = now();
    if (queues_.deferred_count() == 0) c_.TotalHasDeferredRPCsTime += now() - has_deferred_since_;
    admit(req, true);
  }
}

void Receiver::end(const Path* path) {
  if (ended_) return;
  ended_ = true;
  c_.end_s = now();
  x_.instance_done(path);
}

void Receiver::close() { stop(State::closed); }
void Receiver::cancel() { stop(State::cancelled); }

// Closing or cancelling: queued data is dropped, deferred RPCs are answered without data, later
// RPCs are answered at once, batches being deserialized are answered when that ends. The
// instance no longer holds up the exchange.
void Receiver::stop(State why) {
  if (state_ != State::running || ended_) return;
  state_ = why;
  c_.closed = why == State::closed;
  const int64_t held = queues_.buffered_bytes() + queues_.deferred_bytes();
  if (queues_.deferred_count() > 0) c_.TotalHasDeferredRPCsTime += now() - has_deferred_since_;
  for (const DeferredRpc& d : queues_.drain_deferred()) {
    Request* req = deferred_.at(d.id);
    deferred_.erase(d.id);
    req->admitted_at = req->enqueued_at = now();
    respond(req, answer_when_stopped());
  }
  x_.add_receiver_bytes(-held);
  reader_.wake(x_.cluster.sched);
  end();
}

void Receiver::note_peak() {
  c_.PeakBytes = std::max(c_.PeakBytes, queues_.buffered_bytes() + queues_.deferred_bytes());
}

} // namespace exsim
