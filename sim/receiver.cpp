#include "sim/receiver.hpp"

#include "models/cost.hpp"
#include "models/receiver_queue.hpp"
#include "sim/exchange.hpp"
#include "sim/simulation.hpp"

#include <simgrid/s4u.hpp>

#include <algorithm>
#include <deque>
#include <map>
#include <memory>

namespace exsim {

namespace {

class Receiver : public ReceiverEndpoint {
public:
  Receiver(ExchangeRun& x, int index)
      : x_(x), spec_(x.spec), index_(index), c_(x.receivers[static_cast<size_t>(index)]),
        cpu_(x.sim.cpu(c_.host)),
        queues_(spec_.merging, spec_.senders(), spec_.flags.exchg_node_buffer_size_bytes),
        slowdown_(spec_.receiver_consumer_slowdown.at(static_cast<size_t>(index))), started_at_(now()) {}

  // The connection spent the route latency before the transfer: the request is here now.
  void deliver(Request* req) override {
    if (finished_) {
      delete req; // ended normally: every sender has had its end of stream answered
      return;
    }
    req->arrived_at = now();
    handle(req);
    progress();
  }
  void close() override { stop(State::closed); }
  void cancel() override { stop(State::cancelled); }

  // After every event: the consumer takes what it can; once every sender's stream has ended and
  // been consumed, the instance is done.
  void progress() {
    if (state_ != State::running || finished_) return;
    consume_next();
    if (queues_.all_finished() && !consuming_) {
      finished_ = true;
      c_.end_s = now();
      x_.receiver_alive[static_cast<size_t>(index_)] = false;
      x_.instance_done(); // last: it may let other actors run
    }
  }

private:
  enum class State { running, closed, cancelled };
  static double now() { return sg4::Engine::get_clock(); }

  void handle(Request* req) {
    switch (req->kind) {
    case RequestKind::eos:
      c_.TotalEosReceived++;
      if (state_ == State::running) queues_.end_of_stream(req->sender);
      respond(req, answer_when_stopped(RpcStatus::ok));
      return;
    case RequestKind::transmit:
      c_.TotalBatchesReceived++;
      c_.TotalBytesReceived += req->wire_bytes;
      if (state_ != State::running) {
        respond(req, answer_when_stopped(RpcStatus::ok));
        return;
      }
      if (queues_.offer(req->sender, req->accounting_bytes) == Admission::admit) {
        x_.add_receiver_bytes(req->accounting_bytes);
        enqueue(req, service);
      } else {
        if (queues_.deferred_count() == 0) has_deferred_since_ = now();
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
    return state_ == State::closed      ? RpcStatus::receiver_closed
           : state_ == State::cancelled ? RpcStatus::cancelled
                                        : normal;
  }

  // An admitted batch is deserialized (on a service thread when admitted on arrival, on the
  // deserialization pool when it had been deferred), then queued, then its RPC is answered.
  enum Pool { service = 0, deferred_pool = 1 };

  void enqueue(Request* req, Pool pool) {
    if (deserialize_ns(spec_.costs, req->uncompressed_bytes, req->compressed) <= 0) {
      complete_enqueue(req);
      return;
    }
    if (busy_[pool] < pool_size(pool))
      start_deserialization(req, pool);
    else
      waiting_[pool].push_back(req);
  }

  int pool_size(Pool pool) const {
    if (pool == deferred_pool) return spec_.flags.datastream_service_num_deserialization_threads;
    const int svc = spec_.flags.datastream_service_num_svc_threads;
    return svc > 0 ? svc : x_.sim.scenario.cluster.cores_per_executor;
  }

  // The CPU's callbacks run in the simulation kernel when the work is done.
  void start_deserialization(Request* req, Pool pool) {
    const double ns = deserialize_ns(spec_.costs, req->uncompressed_bytes, req->compressed);
    const uint64_t job = cpu_.start(ns, [this](uint64_t id) {
      finish_deserialization(id);
      progress();
    });
    running_.push_back({job, req, now(), pool});
    busy_[pool]++;
  }

  void finish_deserialization(uint64_t job) {
    auto it = std::find_if(running_.begin(), running_.end(), [job](const Deserialization& d) { return d.job == job; });
    const Deserialization d = *it;
    running_.erase(it);
    busy_[d.pool]--;
    c_.DeserializeRowBatchTime += now() - d.started;
    complete_enqueue(d.req);
    if (!waiting_[d.pool].empty()) {
      Request* next = waiting_[d.pool].front();
      waiting_[d.pool].pop_front();
      start_deserialization(next, d.pool);
    }
  }

  void complete_enqueue(Request* req) {
    queues_.enqueue({req->sender, req->rows, req->accounting_bytes});
    c_.TotalBatchesEnqueued++;
    note_peak();
    respond(req, RpcStatus::ok);
  }

  // The response costs the route latency back to the sender; it carries no payload.
  void respond(Request* req, RpcStatus status) {
    const int to = x_.spec.sender_host(req->sender);
    const double t = now();
    x_.to_sender[static_cast<size_t>(req->sender)].push(
        Response{index_, req->slot, status, t - req->arrived_at, t + x_.sim.platform.one_way_s(c_.host, to)});
    delete req;
  }

  // The consumer: pops a batch (from the queue the merger needs next, when merging) and
  // spends consumer CPU on it; answers deferred RPCs that now fit.
  void consume_next() {
    while (!consuming_ && state_ == State::running) {
      const int q = wanted_queue();
      if (q < 0) return;
      if (!queues_.has_batch(q)) {
        if (waiting_since_ < 0) waiting_since_ = now();
        return;
      }
      if (waiting_since_ >= 0) {
        c_.DataWaitTime += now() - waiting_since_;
        waiting_since_ = -1;
      }
      const QueuedBatch b = queues_.pop(q);
      if (c_.TotalBytesDequeued == 0) c_.FirstBatchWaitTime = now() - started_at_;
      c_.TotalBytesDequeued += b.bytes;
      c_.RowsDequeued += b.rows;
      x_.add_receiver_bytes(-b.bytes);
      if (queues_.merging()) cursor_ = (q + 1) % queues_.queues();
      admit_deferred(q);
      const double ns = consume_ns(spec_.costs, b.rows, slowdown_);
      if (ns > 0) {
        consume_job_ = cpu_.start(ns, [this](uint64_t) {
          finish_consume();
          progress();
        });
        consume_started_ = now();
        consuming_ = true;
      }
    }
  }

  void finish_consume() {
    c_.ConsumerTime += now() - consume_started_;
    consuming_ = false;
  }

  // The merger pulls from specific sender queues in turn; a non-merging consumer has one queue.
  int wanted_queue() {
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

  void admit_deferred(int q) {
    while (auto rpc = queues_.admit_deferred(q)) {
      Request* req = deferred_.at(rpc->id);
      deferred_.erase(rpc->id);
      if (queues_.deferred_count() == 0) c_.TotalHasDeferredRPCsTime += now() - has_deferred_since_;
      enqueue(req, deferred_pool);
    }
  }

  // Closing or cancelling: queued data is dropped, deferred RPCs are answered without data, and
  // later RPCs are answered at once. The instance no longer holds up the exchange.
  void stop(State why) {
    if (state_ != State::running || finished_) return;
    state_ = why;
    c_.closed = why == State::closed;
    const int64_t held = queues_.buffered_bytes() + queues_.deferred_bytes();
    if (queues_.deferred_count() > 0) c_.TotalHasDeferredRPCsTime += now() - has_deferred_since_;
    for (const DeferredRpc& d : queues_.drain_deferred()) {
      Request* req = deferred_.at(d.id);
      deferred_.erase(d.id);
      respond(req, answer_when_stopped(RpcStatus::ok));
    }
    if (consuming_) {
      cpu_.cancel(consume_job_);
      finish_consume();
    }
    for (auto& d : running_) {
      cpu_.cancel(d.job);
      respond(d.req, answer_when_stopped(RpcStatus::ok));
    }
    running_.clear();
    for (auto& w : waiting_) {
      for (Request* req : w)
        respond(req, answer_when_stopped(RpcStatus::ok));
      w.clear();
    }
    busy_[0] = busy_[1] = 0;
    x_.add_receiver_bytes(-held);
    c_.end_s = now();
    x_.receiver_alive[static_cast<size_t>(index_)] = false;
    // It keeps answering late RPCs (at once) for as long as they come.
    x_.instance_done(); // last: it may let other actors run
  }

  void note_peak() {
    c_.PeakBytes = std::max(c_.PeakBytes, queues_.buffered_bytes() + queues_.deferred_bytes());
  }

  ExchangeRun& x_;
  const ExchangeSpec& spec_;
  const int index_;
  ReceiverCounters& c_;
  HostCpu& cpu_;
  ReceiverQueues queues_;
  const double slowdown_;
  const double started_at_;
  State state_ = State::running;
  bool finished_ = false;
  std::map<int64_t, Request*> deferred_;
  struct Deserialization {
    uint64_t job;
    Request* req;
    double started;
    Pool pool;
  };
  std::vector<Deserialization> running_; // in start order
  std::deque<Request*> waiting_[2];      // admitted, waiting for a thread of the pool
  int busy_[2] = {0, 0};
  int64_t next_id_ = 0;
  uint64_t consume_job_ = 0;
  bool consuming_ = false;
  double consume_started_ = 0;
  double waiting_since_ = -1;
  double has_deferred_since_ = 0;
  int cursor_ = 0;
};

} // namespace

std::unique_ptr<ReceiverEndpoint> start_receiver(ExchangeRun& x, int index) {
  auto rx = std::make_unique<Receiver>(x, index);
  rx->progress(); // the consumer starts waiting for data now
  return rx;
}

} // namespace exsim
