// A sender instance (KrpcDataStreamSender): runs on its fragment's thread, routes the rows of
// each input batch to channels by the exchange's partitioning, serializes, and sends TransmitData
// RPCs on K-slot channels; the thread waits (InactiveTotalTime) when the channel it must use has
// K RPCs in flight. Responses are events: they retire slots and wake the thread only when what
// it waits for now holds.
//   co_await sender.send(rows);   // per input batch, inside the fragment thread's coroutine
//   co_await sender.close();      // end of stream: last batches and EndDataStream
#pragma once

#include "models/core/coro.hpp"
#include "models/cpu/thread.hpp"
#include "models/exchange/channel.hpp"
#include "models/exchange/exchange.hpp"
#include "models/exchange/partitioner.hpp"
#include "models/exchange/rpc.hpp"

#include <functional>
#include <memory>
#include <vector>

namespace exsim {

class Sender {
public:
  // Sender instance `index` of exchange `x`, on the thread `t` of its fragment instance.
  Sender(ExchangeRuntime& x, int index, SimThread& t);
  Sender(const Sender&) = delete;
  Sender& operator=(const Sender&) = delete;

  // One input batch of `rows` rows.
  Task send(int64_t rows);
  // End of stream: every channel's last batch and EndDataStream (pipelined or serial).
  Task close();
  // After a stop (or an error): waits for every slot; the receivers answer them at once.
  Task teardown();
  // Request::on_response (arg: the request).
  void on_response(uint64_t request);
  // The query is stopping: a waiting thread is woken (it then sees the stop).
  void wake();

  bool error_seen() const { return error_seen_; }

  // For whoever follows rows through the exchange (the query's late rows):
  // called as an input batch is routed, before anything waits: the rows each channel (receiver)
  // gets of it, and the rows its collector already held (0 where a sender has no collectors);
  std::function<void(int channel, int64_t rows, int64_t held)> on_routed;
  // called as a batch of `rows` leaves for a channel: its TransmitData starts, or it is dropped
  // because the receiver closed. A channel's batches leave in the order its rows were routed.
  std::function<void(int channel, int64_t rows)> on_batch;

private:
  double now() const;
  void check_stop() const;
  Task send_batch(int r, int64_t rows);
  Task transmit(int r, int64_t rows, bool compressed);
  Task send_eos(int r);
  Task send_eos_after_wait(int r);
  void start_eos(int r);
  void leaves(int r, int64_t rows);
  void start_rpc(int r, Request* req);
  static constexpr int kFreeSlot = -1; // wait_for_slot: until the channel has a free slot
  static bool holds(const Channel& ch, int max_in_flight);
  // A wait that ends at once returns an empty task: no coroutine frame (most of close()'s waits).
  bool ready(int r, int max_in_flight) const;
  Task wait_for_slot(int r, int max_in_flight);
  Task wait_for_slot_suspending(int r, int max_in_flight);
  bool wait_satisfied() const;
  void serialize(int64_t rows, bool compressed);
  void set_collector_rows(int r, int64_t rows);
  void add_held(int64_t delta);
  void end();
  void record_k();

  ExchangeRuntime& x_;
  const ExchangeSpec& spec_;
  const int index_;
  SimThread& t_;
  SenderCounters& c_;
  const int receivers_;
  const SendMode mode_;
  std::vector<Channel> channels_;
  std::vector<bool> plain_; // channels whose batches go uncompressed (in this daemon)
  // Routing.
  std::unique_ptr<RowSplitter> splitter_;
  std::unique_ptr<RoundRobin> round_robin_;
  int64_t capacity_ = 0; // collector rows
  std::vector<int64_t> fill_; // rows in each channel's collector
  BatchSplit incoming_;       // the current input batch's rows per channel
  std::vector<FillEvent> fills_; // where in it collectors fill
  std::vector<int64_t> collector_bytes_;
  SharedPath path_; // the thread's path as its last RPC took it
  // Waiting.
  Waiter waiter_;
  int wait_channel_ = -1; // -2: every channel idle
  int wait_max_ = 0;
  int64_t held_ = 0;
  bool error_seen_ = false;
  bool ended_ = false;
};

} // namespace exsim
