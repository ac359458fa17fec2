#include "models/exchange/sender.hpp"

#include "models/core/rng.hpp"
#include "models/daemon/cluster.hpp"
#include "models/exchange/batch.hpp"
#include "models/exchange/cost.hpp"
#include "models/exchange/receiver.hpp"

#include <fmt/format.h>

#include <algorithm>

namespace exsim {

Sender::Sender(ExchangeRuntime& x, int index, SimThread& t)
    : x_(x), spec_(x.spec), index_(index), t_(t), c_(x.senders.at(static_cast<size_t>(index))),
      receivers_(spec_.receivers()), mode_(spec_.sender.mode) {
  c_.host = spec_.sender_host(index);
  c_.start_s = now();
  // Sized once: grown by doubling, a sender's channels would hold up to twice their room (88 MiB
  // of 250 at 80 executors, mt_dop=8).
  channels_.reserve(static_cast<size_t>(receivers_));
  for (int r = 0; r < receivers_; ++r) {
    channels_.emplace_back(spec_.sender.window);
    // Compression is skipped for a receiver in the same process.
    plain_.push_back(spec_.receiver_host(r) == c_.host && !spec_.flags.compress_local_channels);
  }
  const uint64_t seed =
      Rng::stream_seed(x.seed, (static_cast<uint64_t>(spec_.index) << 32) | static_cast<uint64_t>(index));
  if (mode_ == SendMode::collectors) {
    capacity_ = spec_.sender.collector_rows;
    splitter_ = std::make_unique<RowSplitter>(spec_.receiver_weights, spec_.directed_fanout, seed,
                                              spec_.flags.batch_size);
    fill_.assign(static_cast<size_t>(receivers_), 0);
  } else if (mode_ == SendMode::whole_batch) {
    round_robin_ = std::make_unique<RoundRobin>(receivers_, seed);
  }
  collector_bytes_.assign(static_cast<size_t>(receivers_), 0);
  x.sender_started(index);
}

double Sender::now() const { return x_.cluster.sched.now(); }

void Sender::wake() { waiter_.wake(x_.cluster.sched); }

void Sender::check_stop() const {
  if (x_.stopping || error_seen_) throw Stop{};
}

// --- input -------------------------------------------------------------------------------

Task Sender::send(int64_t n) {
  check_stop();
  if (n <= 0) co_return;
  c_.RowsSent += n; // Impala counts the input batch's rows, once, whatever channels they go to
  switch (mode_) {
  case SendMode::collectors: {
    splitter_->split(n, incoming_);
    if (on_routed)
      for (int r : incoming_.touched)
        on_routed(r, incoming_.rows[static_cast<size_t>(r)], fill_[static_cast<size_t>(r)]);
    const double batch_ns = sender_row_ns(spec_.costs, spec_.partitioning, spec_.directed_fanout) * static_cast<double>(n);
    double done = 0;
    collector_fill_events(fill_, incoming_, capacity_, fills_);
    for (const FillEvent& ev : fills_) {
      // Rows up to this point of the input batch are hashed and copied before the send.
      t_.charge(PathPart::cpu_exchange_send, (ev.position - done) * batch_ns);
      done = ev.position;
      set_collector_rows(ev.channel, capacity_); // full just before it is sent
      co_await send_batch(ev.channel, capacity_);
      set_collector_rows(ev.channel, 0);
    }
    t_.charge(PathPart::cpu_exchange_send, (1 - done) * batch_ns);
    // Only the channels that received rows change (each grows, so the order does not move a peak).
    for (int r : incoming_.touched) {
      const size_t i = static_cast<size_t>(r);
      fill_[i] = (fill_[i] + incoming_.rows[i]) % capacity_;
      set_collector_rows(r, fill_[i]);
    }
    break;
  }
  case SendMode::whole_batch: {
    const int r = round_robin_->next();
    if (on_routed) on_routed(r, n, 0);
    co_await send_batch(r, n);
    break;
  }
  case SendMode::broadcast: {
    // Serialized once, then sent to every channel in turn, each waiting for its own slot.
    const bool compressed = spec_.flags.compression;
    if (on_routed)
      for (int r = 0; r < receivers_; ++r)
        on_routed(r, n, 0);
    serialize(n, compressed);
    for (int r = 0; r < receivers_; ++r)
      co_await transmit(r, n, compressed);
    break;
  }
  }
  check_stop();
}

// --- sending -----------------------------------------------------------------------------

void Sender::serialize(int64_t rows, bool compressed) {
  const double ns = serialize_ns(spec_.costs, uncompressed_bytes(rows, spec_.shape), compressed);
  c_.SerializeBatchTime += ns * 1e-9;
  t_.charge(PathPart::cpu_exchange_send, ns);
}

// Serializes a batch for channel r and transmits it; no coroutine of its own (transmit's is the
// one that waits).
Task Sender::send_batch(int r, int64_t rows) {
  if (channels_[static_cast<size_t>(r)].receiver_closed()) {
    leaves(r, rows);
    c_.RowsDropped += rows;
    return {};
  }
  const bool compressed = spec_.flags.compression && !plain_[static_cast<size_t>(r)];
  serialize(rows, compressed);
  return transmit(r, rows, compressed);
}

// Waits for a free slot on channel r, then starts TransmitData (skipped once r is closed). The
// serialization owed runs first, here, so that a channel with a free slot then needs no wait.
Task Sender::transmit(int r, int64_t rows, bool compressed) {
  Channel& ch = channels_[static_cast<size_t>(r)];
  co_await t_.flush();
  co_await wait_for_slot(r, kFreeSlot);
  leaves(r, rows);
  if (ch.receiver_closed()) {
    c_.RowsDropped += rows;
    co_return;
  }
  Request* req = x_.requests.get();
  req->kind = RequestKind::transmit;
  req->rows = rows;
  req->compressed = compressed;
  req->uncompressed_bytes = uncompressed_bytes(rows, spec_.shape);
  req->wire_bytes = wire_bytes(rows, spec_.shape, compressed);
  req->accounting_bytes = accounting_bytes(rows, spec_.shape);
  start_rpc(r, req);
  c_.TransmitDataRpcs++;
  c_.TotalBytesSent += req->wire_bytes;
  c_.UncompressedRowBatchSize += req->accounting_bytes; // Impala counts RowBatch::GetDeserializedSize()
}

void Sender::leaves(int r, int64_t rows) {
  if (on_batch) on_batch(r, rows);
}

// EndDataStream on channel r once it is idle. A channel already idle, with no CPU owed, starts it
// without a coroutine: at close most channels are.
Task Sender::send_eos(int r) {
  if (!ready(r, 0)) return send_eos_after_wait(r);
  check_stop();
  start_eos(r);
  return {};
}

Task Sender::send_eos_after_wait(int r) {
  co_await wait_for_slot(r, 0);
  start_eos(r);
}

void Sender::start_eos(int r) {
  if (channels_[static_cast<size_t>(r)].receiver_closed()) return;
  Request* req = x_.requests.get();
  req->kind = RequestKind::eos;
  start_rpc(r, req);
  c_.EosSent++;
}

void Sender::start_rpc(int r, Request* req) {
  Channel& ch = channels_[static_cast<size_t>(r)];
  req->sender = index_;
  req->receiver = r;
  req->slot = ch.start_rpc(now(), req->wire_bytes, req->rows, req->kind == RequestKind::eos);
  req->sent_at = now();
  req->path = share(path_, t_.path);
  req->path_time = now();
  req->on_arrival = Callback::of<&Receiver::deliver>(x_.receiver_objects.at(static_cast<size_t>(r)).get(),
                                                     reinterpret_cast<uint64_t>(req));
  req->on_response = Callback::of<&Sender::on_response>(this, reinterpret_cast<uint64_t>(req));
  add_held(req->wire_bytes);
  x_.cluster.network.send(c_.host, spec_.receiver_host(r), req);
}

bool Sender::wait_satisfied() const {
  if (wait_channel_ == -2) {
    for (const Channel& ch : channels_)
      if (!ch.idle()) return false;
    return true;
  }
  return wait_channel_ >= 0 && holds(channels_[static_cast<size_t>(wait_channel_)], wait_max_);
}

bool Sender::holds(const Channel& ch, int max_in_flight) {
  return max_in_flight == kFreeSlot ? ch.has_free_slot() : ch.in_flight() <= max_in_flight;
}

// No CPU owed and channel r already holds: a wait for it ends at once (the flush has nothing to
// run), so it needs no coroutine.
bool Sender::ready(int r, int max_in_flight) const {
  return !t_.owes_cpu() && holds(channels_[static_cast<size_t>(r)], max_in_flight);
}

// Waits (InactiveTotalTime) until channel r has at most `max_in_flight` RPCs in flight (kFreeSlot:
// fewer than its K now, which an adaptive K may move while the thread waits). The CPU work owed
// so far runs first: it is what the thread did before it reached the wait.
Task Sender::wait_for_slot(int r, int max_in_flight) {
  if (!ready(r, max_in_flight)) return wait_for_slot_suspending(r, max_in_flight);
  check_stop();
  return {};
}

Task Sender::wait_for_slot_suspending(int r, int max_in_flight) {
  co_await t_.flush();
  check_stop();
  if (holds(channels_[static_cast<size_t>(r)], max_in_flight)) co_return;
  const double t0 = now();
  wait_channel_ = r;
  wait_max_ = max_in_flight;
  while (!wait_satisfied()) {
    co_await waiter_.wait();
    if (x_.stopping || error_seen_) break;
  }
  wait_channel_ = -1;
  c_.InactiveTotalTime += now() - t0;
  t_.catch_up(PathPart::rtt);
  check_stop();
}

// A response: retires its slot; wakes the thread when what it waits for now holds, with the
// path of this RPC (the thread was waiting for it).
void Sender::on_response(uint64_t request) {
  Request* req = reinterpret_cast<Request*>(request);
  const int r = req->receiver;
  Channel& ch = channels_[static_cast<size_t>(r)];
  RpcStatus status = req->status;
  std::string detail;
  if (status == RpcStatus::ok && now() >= x_.rpc_error_time(index_, r)) {
    status = RpcStatus::error;
    detail = fmt::format("{} to receiver {} failed: injected RPC error (sender {}, at or after {} s)",
                         ch.slot(req->slot).eos ? "EndDataStream" : "TransmitData", r, index_,
                         x_.rpc_error_time(index_, r));
  }
  const double recvr_time = req->responded_at - req->arrived_at;
  const RpcOutcome out = ch.finish_rpc(req->slot, now(), status, detail);
  add_held(-out.wire_bytes);
  c_.RpcRecvrTime += recvr_time;
  c_.RpcNetworkTime += out.duration - recvr_time;
  if (status == RpcStatus::ok || status == RpcStatus::receiver_closed)
    c_.RpcSuccess++;
  else if (status == RpcStatus::error)
    c_.RpcFailure++;
  const bool wakes = waiter_.waiting() && wait_satisfied();
  if (wakes) t_.adopt(req->path_at(now()));
  x_.requests.put(req);
  if (status == RpcStatus::error && !error_seen_) {
    // The first error is kept; the query fails with it and every instance is cancelled.
    error_seen_ = true;
    c_.error = detail;
    x_.fail_query(ExchangeStatus::failed, detail);
    waiter_.wake(x_.cluster.sched);
    return;
  }
  if (wakes) waiter_.wake(x_.cluster.sched);
}

// --- end of stream -----------------------------------------------------------------------

Task Sender::close() {
  check_stop();
  if (spec_.flags.eos_flush == EosFlush::pipelined) {
    // Every channel's last batch (each waiting for its own slot), then wait for all, EOS to all,
    // wait for all: about 2 RTT in total.
    for (int r = 0; r < static_cast<int>(fill_.size()); ++r)
      if (fill_[static_cast<size_t>(r)] > 0) {
        co_await send_batch(r, fill_[static_cast<size_t>(r)]);
        set_collector_rows(r, 0);
      }
    for (int r = 0; r < receivers_; ++r)
      co_await wait_for_slot(r, 0);
    for (int r = 0; r < receivers_; ++r)
      co_await send_eos(r);
    for (int r = 0; r < receivers_; ++r)
      co_await wait_for_slot(r, 0);
  } else {
    // Before IMPALA-9134: per channel, wait, last batch, wait, EOS, wait: about 2 RTT each.
    for (int r = 0; r < receivers_; ++r) {
      co_await wait_for_slot(r, 0);
      if (!fill_.empty() && fill_[static_cast<size_t>(r)] > 0) {
        co_await send_batch(r, fill_[static_cast<size_t>(r)]);
        set_collector_rows(r, 0);
      }
      co_await wait_for_slot(r, 0);
      co_await send_eos(r);
      co_await wait_for_slot(r, 0);
    }
  }
  end();
}

// Cancels by waiting for every slot: receivers answer in-flight RPCs of a stopped exchange at
// once, without data. Leaves no slot in flight.
Task Sender::teardown() {
  wait_channel_ = -2;
  while (!wait_satisfied())
    co_await waiter_.wait();
  wait_channel_ = -1;
  for (const Channel& ch : channels_)
    c_.slots_in_flight_after_teardown += ch.in_flight();
  for (int r = 0; r < receivers_; ++r)
    set_collector_rows(r, 0);
  end();
}

void Sender::end() {
  if (ended_) return;
  ended_ = true;
  c_.CpuTime = t_.cpu_time_s;
  c_.end_s = now();
  if (spec_.sender.window.adaptive()) record_k();
  x_.instance_done(&t_.path);
}

// Each channel's K over its life, from its first RPC to now.
void Sender::record_k() {
  for (const Channel& ch : channels_) {
    const LimitTrace& trace = ch.policy().trace();
    if (trace.changes.empty()) continue; // never sent
    const double span = now() - trace.changes.front().first;
    c_.k_area += trace.mean(now()) * span;
    c_.k_span_s += span;
    c_.k_max = std::max(c_.k_max, trace.max);
  }
  if (spec_.flags.rpcs_in_flight_series)
    for (const Channel& ch : channels_)
      c_.k_series.push_back(ch.policy().trace().changes);
}

// --- memory ------------------------------------------------------------------------------

void Sender::set_collector_rows(int r, int64_t rows) {
  const int64_t bytes = uncompressed_bytes(rows, spec_.shape);
  add_held(bytes - collector_bytes_[static_cast<size_t>(r)]);
  collector_bytes_[static_cast<size_t>(r)] = bytes;
}

void Sender::add_held(int64_t delta) {
  held_ += delta;
  c_.PeakBytes = std::max(c_.PeakBytes, held_);
  x_.add_sender_bytes(delta);
}

} // namespace exsim
