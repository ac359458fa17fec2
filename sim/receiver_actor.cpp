#include "sim/receiver_actor.hpp"

#include "models/cost.hpp"
#include "models/receiver_queue.hpp"
#include "sim/exchange.hpp"

#include <simgrid/s4u.hpp>

#include <algorithm>
#include <map>

namespace exsim {

namespace {

class Receiver {
public:
  Receiver(ExchangeRun& x, int index)
      : x_(x), spec_(x.spec), index_(index), c_(x.receivers[static_cast<size_t>(index)]),
        inbox_(x.to_receiver[static_cast<size_t>(index)]),
        queues_(spec_.merging, spec_.senders(), spec_.flags.exchg_node_buffer_size_bytes),
        slowdown_(spec_.receiver_consumer_slowdown.at(static_cast<size_t>(index))), started_at_(now()) {}

  void run() {
    Request* msg = nullptr;
    sg4::CommPtr pending = inbox_->get_async<Request>(&msg);
    while (true) {
      if (state_ == State::running && queues_.all_finished() && !consuming_) {
        c_.end_s = now();
        break;
      }
      ssize_t done = 0;
      if (consuming_)
        done = sg4::Activity::wait_any(std::vector<sg4::ActivityPtr>{pending, consume_});
      else
        pending->wait();
      if (done == 0) {
        Request* req = msg;
        msg = nullptr;
        pending = inbox_->get_async<Request>(&msg);
        handle(req);
      } else {
        finish_consume();
      }
      if (state_ == State::running)
        consume_next();
    }
  }

private:
  enum class State { running, closed, cancelled };
  static double now() { return sg4::Engine::get_clock(); }

  void handle(Request* req) {
    switch (req->kind) {
    case RequestKind::cancel:
      stop(State::cancelled);
      return; // control messages are owned by the exchange
    case RequestKind::close:
      stop(State::closed);
      return;
    case RequestKind::eos:
      req->arrived_at = now();
      c_.TotalEosReceived++;
      if (state_ == State::running)
        queues_.end_of_stream(req->sender);
      respond(req, answer_when_stopped(RpcStatus::ok));
      return;
    case RequestKind::transmit:
      req->arrived_at = now();
      c_.TotalBatchesReceived++;
      c_.TotalBytesReceived += req->wire_bytes;
      if (state_ != State::running) {
        respond(req, answer_when_stopped(RpcStatus::ok));
        return;
      }
      if (queues_.offer(req->sender, req->accounting_bytes) == Admission::admit) {
        x_.add_receiver_bytes(req->accounting_bytes);
        enqueue(req);
      } else {
        if (queues_.deferred_count() == 0)
          has_deferred_since_ = now();
        c_.TotalRPCsDeferred++;
        const int64_t id = next_id_++;
        deferred_[id] = req;
        queues_.defer({id, req->sender, req->accounting_bytes});
        x_.add_receiver_bytes(req->accounting_bytes);
        c_.DeferredQueueSize = std::max(c_.DeferredQueueSize, queues_.deferred_count());
        note_peak();
      }
      return;
    }
  }

  RpcStatus answer_when_stopped(RpcStatus normal) const {
    return state_ == State::closed ? RpcStatus::receiver_closed
           : state_ == State::cancelled ? RpcStatus::cancelled
                                        : normal;
  }

  // Deserializes an admitted batch on this service thread, queues it, and answers the RPC.
  void enqueue(Request* req) {
    const double ns = deserialize_ns(spec_.costs, req->uncompressed_bytes, req->compressed);
    if (ns > 0) {
      const double t0 = now();
      sg4::this_actor::execute(ns);
      c_.DeserializeRowBatchTime += now() - t0;
    }
    queues_.enqueue({req->sender, req->rows, req->accounting_bytes});
    c_.TotalBatchesEnqueued++;
    note_peak();
    respond(req, RpcStatus::ok);
  }

  // Responses are detached: a receiver never waits for one, and detached comms, unlike kept
  // ones, do not pile up on the actor (which made long runs quadratic).
  void respond(Request* req, RpcStatus status) {
    auto* resp = new Response{index_, req->slot, status, now() - req->arrived_at};
    x_.to_sender[static_cast<size_t>(req->sender)]->put_init(resp, 0)->detach();
    delete req;
  }

  // The consumer: pops a batch (from the queue the merger needs next, when merging) and
  // spends consumer CPU on it; answers deferred RPCs that now fit.
  void consume_next() {
    while (!consuming_ && state_ == State::running) {
      const int q = wanted_queue();
      if (q < 0)
        return;
      if (!queues_.has_batch(q)) {
        if (waiting_since_ < 0)
          waiting_since_ = now();
        return;
      }
      if (waiting_since_ >= 0) {
        c_.DataWaitTime += now() - waiting_since_;
        waiting_since_ = -1;
      }
      const QueuedBatch b = queues_.pop(q);
      if (c_.TotalBytesDequeued == 0)
        c_.FirstBatchWaitTime = now() - started_at_;
      c_.TotalBytesDequeued += b.bytes;
      c_.RowsDequeued += b.rows;
      x_.add_receiver_bytes(-b.bytes);
      if (queues_.merging())
        cursor_ = (q + 1) % queues_.queues();
      admit_deferred(q);
      const double ns = consume_ns(spec_.costs, b.rows, slowdown_);
      if (ns > 0) {
        consume_ = sg4::this_actor::exec_async(ns);
        consume_started_ = now();
        consuming_ = true;
      }
    }
  }

  void finish_consume() {
    c_.ConsumerTime += now() - consume_started_;
    consume_ = nullptr;
    consuming_ = false;
  }

  // The merger pulls from specific sender queues in turn; a non-merging consumer has one queue.
  int wanted_queue() {
    if (!queues_.merging())
      return queues_.queue_finished(0) ? -1 : 0;
    for (int i = 0; i < queues_.queues(); ++i) {
      const int q = (cursor_ + i) % queues_.queues();
      if (!queues_.queue_finished(q)) {
        cursor_ = q;
        return q;
      }
    }
    return -1;
  }

  void admit_deferred(int q) {
    while (auto rpc = queues_.admit_deferred(q)) {
      Request* req = deferred_.at(rpc->id);
      deferred_.erase(rpc->id);
      if (queues_.deferred_count() == 0)
        c_.TotalHasDeferredRPCsTime += now() - has_deferred_since_;
      enqueue(req);
    }
  }

  // Closing or cancelling: queued data is dropped, deferred RPCs are answered without data, and
  // later RPCs are answered at once. The instance no longer holds up the exchange.
  void stop(State why) {
    if (state_ != State::running)
      return;
    state_ = why;
    c_.closed = why == State::closed;
    const int64_t held = queues_.buffered_bytes() + queues_.deferred_bytes();
    if (queues_.deferred_count() > 0)
      c_.TotalHasDeferredRPCsTime += now() - has_deferred_since_;
    for (const DeferredRpc& d : queues_.drain_deferred()) {
      Request* req = deferred_.at(d.id);
      deferred_.erase(d.id);
      respond(req, answer_when_stopped(RpcStatus::ok));
    }
    if (consuming_) {
      consume_->cancel();
      finish_consume();
    }
    x_.add_receiver_bytes(-held);
    c_.end_s = now();
    x_.receiver_alive[static_cast<size_t>(index_)] = false;
    // It keeps answering late RPCs until the simulation ends, without keeping it alive.
    sg4::Actor::self()->daemonize();
    x_.instance_done();
  }

  void note_peak() {
    c_.PeakBytes = std::max(c_.PeakBytes, queues_.buffered_bytes() + queues_.deferred_bytes());
  }

  ExchangeRun& x_;
  const ExchangeSpec& spec_;
  const int index_;
  ReceiverCounters& c_;
  sg4::Mailbox* inbox_;
  ReceiverQueues queues_;
  const double slowdown_;
  const double started_at_;
  State state_ = State::running;
  std::map<int64_t, Request*> deferred_;
  int64_t next_id_ = 0;
  sg4::ExecPtr consume_;
  bool consuming_ = false;
  double consume_started_ = 0;
  double waiting_since_ = -1;
  double has_deferred_since_ = 0;
  int cursor_ = 0;
};

} // namespace

void run_receiver(ExchangeRun& x, int index) {
  Receiver rx(x, index);
  rx.run();
  if (x.receiver_alive[static_cast<size_t>(index)]) {
    x.receiver_alive[static_cast<size_t>(index)] = false;
    x.instance_done();
  }
}

} // namespace exsim
