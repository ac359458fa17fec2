#include "sim/sender_actor.hpp"

#include "models/batch.hpp"
#include "models/channel.hpp"
#include "models/cost.hpp"
#include "models/partitioner.hpp"
#include "models/rng.hpp"
#include "sim/exchange.hpp"
#include "sim/simulation.hpp"

#include <fmt/format.h>
#include <simgrid/s4u.hpp>

#include <algorithm>
#include <memory>

namespace exsim {

namespace {

// Thrown inside the sender when the exchange must stop; caught at the top of the actor, which
// then tears its channels down.
struct Stop {};

class Sender {
public:
  Sender(ExchangeRun& x, int index)
      : x_(x), spec_(x.spec), index_(index), c_(x.senders[static_cast<size_t>(index)]),
        inbox_(x.to_sender[static_cast<size_t>(index)]), cpu_(x.sim.cpu(c_.host)),
        wake_(sg4::Semaphore::create(0)), receivers_(spec_.receivers()),
        rng_seed_(Rng::stream_seed(x.sim.scenario.seed, (static_cast<uint64_t>(x.spec.index) << 32) |
                                                            static_cast<uint64_t>(index))) {
    for (int r = 0; r < receivers_; ++r) {
      channels_.emplace_back(spec_.k);
      local_.push_back(spec_.receiver_host(r) == c_.host);
    }
    const int64_t s = spec_.senders();
    rows_ = spec_.rows_total / s + (index < spec_.rows_total % s ? 1 : 0);
  }

  void run() {
    try {
      switch (send_mode(spec_.partitioning, receivers_)) {
      case SendMode::collectors:
        produce_with_collectors();
        break;
      case SendMode::whole_batch:
        produce_whole_batches();
        break;
      case SendMode::broadcast:
        produce_broadcast();
        break;
      }
      if (spec_.flags.eos_flush == EosFlush::pipelined)
        flush_pipelined();
      else
        flush_serial();
    } catch (const Stop&) {
    }
    teardown();
    c_.end_s = now();
  }

private:
  static double now() { return sg4::Engine::get_clock(); }

  // --- input ---------------------------------------------------------------------------

  void produce_with_collectors() {
    const int64_t capacity = collector_capacity_rows(spec_.flags.data_stream_sender_buffer_size, spec_.shape);
    RowSplitter splitter(spec_.receiver_weights, spec_.directed_fanout, rng_seed_);
    std::vector<int64_t> fill(static_cast<size_t>(receivers_), 0), incoming;
    const double row_ns = sender_row_ns(spec_.costs, spec_.partitioning, spec_.directed_fanout);
    for (int64_t left = rows_; left > 0;) {
      const int64_t n = std::min<int64_t>(spec_.flags.batch_size, left);
      left -= n;
      splitter.split(n, incoming);
      const double batch_ns = row_ns * static_cast<double>(n);
      double done = 0;
      for (const FillEvent& ev : collector_fill_events(fill, incoming, capacity)) {
        // Rows up to this point of the input batch are hashed and copied before the send.
        charge_cpu((ev.position - done) * batch_ns);
        done = ev.position;
        set_collector_bytes(ev.channel, capacity); // full just before it is sent
        send_batch(ev.channel, capacity);
        set_collector_bytes(ev.channel, 0);
      }
      charge_cpu((1 - done) * batch_ns);
      for (int r = 0; r < receivers_; ++r) {
        const size_t i = static_cast<size_t>(r);
        fill[i] = (fill[i] + incoming[i]) % capacity;
        set_collector_bytes(r, fill[i]);
      }
      check_stop();
    }
    for (int r = 0; r < receivers_; ++r)
      leftover_.push_back(fill[static_cast<size_t>(r)]);
  }

  void produce_whole_batches() {
    RoundRobin rr(receivers_, rng_seed_);
    for (int64_t left = rows_; left > 0;) {
      const int64_t n = std::min<int64_t>(spec_.flags.batch_size, left);
      left -= n;
      charge_cpu(sender_row_ns(spec_.costs, spec_.partitioning, 1) * static_cast<double>(n));
      send_batch(rr.next(), n);
      check_stop();
    }
  }

  void produce_broadcast() {
    const bool compressed = spec_.flags.compression;
    for (int64_t left = rows_; left > 0;) {
      const int64_t n = std::min<int64_t>(spec_.flags.batch_size, left);
      left -= n;
      charge_cpu(sender_row_ns(spec_.costs, spec_.partitioning, 1) * static_cast<double>(n));
      // Serialized once, then sent to every channel in turn, each waiting for its own slot.
      serialize(n, compressed);
      for (int r = 0; r < receivers_; ++r)
        transmit(r, n, compressed);
      check_stop();
    }
  }

  // --- sending -------------------------------------------------------------------------

  void charge_cpu(double ns) { cpu_debt_ns_ += ns; }

  // CPU work accumulated since the last blocking point runs now, on a core of this host.
  void run_cpu() {
    if (cpu_debt_ns_ <= 0) return;
    const double t0 = now();
    cpu_.run(cpu_debt_ns_, wake_);
    c_.CpuTime += now() - t0;
    cpu_debt_ns_ = 0;
  }

  void check_stop() {
    if (x_.aborted || error_seen_) throw Stop{};
  }

  void serialize(int64_t rows, bool compressed) {
    const double ns = serialize_ns(spec_.costs, uncompressed_bytes(rows, spec_.shape), compressed);
    c_.SerializeBatchTime += ns * 1e-9;
    charge_cpu(ns);
  }

  void send_batch(int r, int64_t rows) {
    if (channels_[static_cast<size_t>(r)].receiver_closed()) {
      c_.RowsDropped += rows;
      return;
    }
    // Compression is skipped for a receiver in the same process.
    const bool compressed = spec_.flags.compression && !local_[static_cast<size_t>(r)];
    serialize(rows, compressed);
    transmit(r, rows, compressed);
  }

  // Waits for a free slot on channel r, then starts TransmitData (skipped once r is closed).
  void transmit(int r, int64_t rows, bool compressed) {
    Channel& ch = channels_[static_cast<size_t>(r)];
    wait_for_slot(r, ch.k() - 1);
    if (ch.receiver_closed()) {
      c_.RowsDropped += rows;
      return;
    }
    Request* req = new Request;
    req->kind = RequestKind::transmit;
    req->rows = rows;
    req->compressed = compressed;
    req->uncompressed_bytes = uncompressed_bytes(rows, spec_.shape);
    req->wire_bytes = wire_bytes(rows, spec_.shape, compressed);
    req->accounting_bytes = accounting_bytes(rows, spec_.shape);
    start_rpc(r, req);
    c_.TransmitDataRpcs++;
    c_.RowsSent += rows;
    c_.TotalBytesSent += req->wire_bytes;
    c_.UncompressedRowBatchSize += req->uncompressed_bytes;
  }

  void send_eos(int r) {
    Channel& ch = channels_[static_cast<size_t>(r)];
    wait_for_slot(r, 0);
    if (ch.receiver_closed()) return;
    Request* req = new Request;
    req->kind = RequestKind::eos;
    start_rpc(r, req);
    c_.EosSent++;
  }

  void start_rpc(int r, Request* req) {
    Channel& ch = channels_[static_cast<size_t>(r)];
    req->sender = index_;
    req->slot = ch.start_rpc(now(), req->wire_bytes, req->rows, req->kind == RequestKind::eos);
    add_held(req->wire_bytes);
    const int to = spec_.receiver_host(r);
    x_.sim.connection(c_.host, to)
        .send(x_.to_receiver[static_cast<size_t>(r)].get(), req, x_.sim.platform.one_way_s(c_.host, to));
  }

  // Blocks (InactiveTotalTime) until channel r has at most `max_in_flight` RPCs in flight.
  void wait_for_slot(int r, int max_in_flight) {
    run_cpu();
    check_stop();
    Channel& ch = channels_[static_cast<size_t>(r)];
    if (ch.in_flight() <= max_in_flight) return;
    const double t0 = now();
    while (ch.in_flight() > max_in_flight) {
      handle_response();
      check_stop();
    }
    c_.InactiveTotalTime += now() - t0;
  }

  // Takes the next response off this sender's completion queue and retires its slot.
  void handle_response() {
    const Response resp = inbox_.next();
    if (resp.slot < 0) return; // wake-up: the exchange is being aborted
    const int r = resp.receiver;
    Channel& ch = channels_[static_cast<size_t>(r)];
    RpcStatus status = resp.status;
    std::string detail;
    if (status == RpcStatus::ok && now() >= x_.rpc_error_time(index_, r)) {
      status = RpcStatus::error;
      detail = fmt::format("{} to receiver {} failed: injected RPC error (sender {}, at or after {} s)",
                           ch.slot(resp.slot).eos ? "EndDataStream" : "TransmitData", r, index_,
                           x_.rpc_error_time(index_, r));
    }
    const double recvr_time = resp.recvr_time;
    const RpcOutcome out = ch.finish_rpc(resp.slot, now(), status, detail);
    add_held(-out.wire_bytes);
    c_.RpcRecvrTime += recvr_time;
    c_.RpcNetworkTime += out.duration - recvr_time;
    if (status == RpcStatus::ok || status == RpcStatus::receiver_closed)
      c_.RpcSuccess++;
    else if (status == RpcStatus::error)
      c_.RpcFailure++;
    if (status == RpcStatus::error && !error_seen_) {
      // The first error is kept; the query fails with it and every instance is cancelled.
      error_seen_ = true;
      c_.error = detail;
      x_.sim.abort_query(x_, ExchangeStatus::failed, detail);
    }
  }

  // --- end of stream -------------------------------------------------------------------

  void flush_pipelined() {
    // Every channel's last batch (each waiting for its own slot), then wait for all, EOS to
    // all, wait for all: about 2 RTT in total.
    flush_collectors();
    for (int r = 0; r < receivers_; ++r)
      wait_for_slot(r, 0);
    for (int r = 0; r < receivers_; ++r)
      send_eos(r);
    for (int r = 0; r < receivers_; ++r)
      wait_for_slot(r, 0);
  }

  void flush_serial() {
    // Before IMPALA-9134: per channel, wait, last batch, wait, EOS, wait: about 2 RTT each.
    for (int r = 0; r < receivers_; ++r) {
      wait_for_slot(r, 0);
      if (!leftover_.empty() && leftover_[static_cast<size_t>(r)] > 0) {
        send_batch(r, leftover_[static_cast<size_t>(r)]);
        set_collector_bytes(r, 0);
      }
      wait_for_slot(r, 0);
      send_eos(r);
      wait_for_slot(r, 0);
    }
  }

  void flush_collectors() {
    for (int r = 0; r < static_cast<int>(leftover_.size()); ++r)
      if (leftover_[static_cast<size_t>(r)] > 0) {
        send_batch(r, leftover_[static_cast<size_t>(r)]);
        set_collector_bytes(r, 0);
      }
  }

  // Cancels by waiting for every slot: receivers answer in-flight RPCs of an aborted exchange at
  // once, without data. Leaves no slot in flight.
  void teardown() {
    for (int r = 0; r < receivers_; ++r)
      while (!channels_[static_cast<size_t>(r)].idle())
        handle_response();
    for (const Channel& ch : channels_)
      c_.slots_in_flight_after_teardown += ch.in_flight();
    for (int r = 0; r < receivers_; ++r)
      set_collector_bytes(r, 0);
  }

  // --- memory --------------------------------------------------------------------------

  void set_collector_bytes(int r, int64_t rows) {
    if (collector_bytes_.empty()) collector_bytes_.assign(static_cast<size_t>(receivers_), 0);
    const int64_t bytes = uncompressed_bytes(rows, spec_.shape);
    add_held(bytes - collector_bytes_[static_cast<size_t>(r)]);
    collector_bytes_[static_cast<size_t>(r)] = bytes;
  }

  void add_held(int64_t delta) {
    held_ += delta;
    c_.PeakBytes = std::max(c_.PeakBytes, held_);
    x_.add_sender_bytes(delta);
  }

  ExchangeRun& x_;
  const ExchangeSpec& spec_;
  const int index_;
  SenderCounters& c_;
  ResponseQueue& inbox_;
  HostCpu& cpu_;
  sg4::SemaphorePtr wake_; // the sender waits here while its CPU work runs
  const int receivers_;
  const uint64_t rng_seed_;
  int64_t rows_ = 0;
  std::vector<Channel> channels_;
  std::vector<bool> local_;
  std::vector<int64_t> leftover_;
  std::vector<int64_t> collector_bytes_;
  double cpu_debt_ns_ = 0;
  int64_t held_ = 0;
  bool error_seen_ = false;
};

} // namespace

void run_sender(ExchangeRun& x, int index) {
  Sender(x, index).run();
  x.sender_alive[static_cast<size_t>(index)] = false;
  x.instance_done();
}

} // namespace exsim
