// One exchange at run time: its instances' endpoints, counters, fault schedule and lifecycle
// (waiting for `after` dependencies, start, abort, completion). Only sim/ knows that senders are
// SimGrid actors and receivers objects driven by the events delivered to them.
#pragma once

#include "models/channel.hpp"
#include "sim/platform.hpp"
#include "input/scenario.hpp"

#include <simgrid/s4u.hpp>

#include <deque>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace exsim {

class Simulation;

enum class RequestKind { transmit, eos };

// A TransmitData or EndDataStream request travelling to a receiver.
struct Request {
  RequestKind kind = RequestKind::transmit;
  int sender = 0;
  int slot = 0;
  int64_t rows = 0;
  int64_t wire_bytes = 0;
  int64_t uncompressed_bytes = 0;
  int64_t accounting_bytes = 0;
  bool compressed = false;
  double arrived_at = 0; // when the request reached the receiver (one-way latency + transfer)
};

// The answer to one RPC, travelling back to the sender. slot < 0 marks a wake-up (abort).
struct Response {
  int receiver = 0;
  int slot = 0;
  RpcStatus status = RpcStatus::ok;
  double recvr_time = 0; // from arrival at the receiver until the response was sent
  double due = 0;        // when it reaches the sender: sent + one-way latency
};

// A sender's completion queue. Responses carry no payload, so they cost only the route latency
// and never enter SimGrid's bandwidth-sharing solver: a receiver files each response with its
// arrival time, a timer signals the sender when it is due, and the sender takes the earliest.
class ResponseQueue {
public:
  ResponseQueue() : arrivals_(sg4::Semaphore::create(0)) {}
  void push(const Response& r);
  // Blocks until a response is due, and returns the earliest due (then in filing order).
  Response next();

private:
  struct Entry {
    Response response;
    uint64_t seq;
    bool operator>(const Entry& o) const {
      return response.due != o.response.due ? response.due > o.response.due : seq > o.seq;
    }
  };
  std::vector<Entry> heap_;
  uint64_t seq_ = 0;
  sg4::SemaphorePtr arrivals_;
};

// A receiver instance as the connections and the coordinator see it (sim/receiver.hpp).
class ReceiverEndpoint {
public:
  virtual ~ReceiverEndpoint() = default;
  // The request's bytes have arrived; ownership passes to the receiver.
  virtual void deliver(Request* req) = 0;
  // The fragment above stopped reading (answers "receiver closed" from now on).
  virtual void close() = 0;
  // The query is being cancelled.
  virtual void cancel() = 0;
};

struct SenderCounters {
  int host = 0;
  double InactiveTotalTime = 0;
  double SerializeBatchTime = 0;
  double CpuTime = 0;
  double RpcNetworkTime = 0;
  double RpcRecvrTime = 0;
  int64_t RpcSuccess = 0;
  int64_t RpcFailure = 0;
  int64_t TotalBytesSent = 0;
  int64_t UncompressedRowBatchSize = 0;
  int64_t RowsSent = 0;
  int64_t RowsDropped = 0;
  int64_t EosSent = 0;
  int64_t TransmitDataRpcs = 0;
  int64_t PeakBytes = 0;
  int slots_in_flight_after_teardown = 0;
  std::string error;
  double end_s = 0;
};

struct ReceiverCounters {
  int host = 0;
  int64_t TotalBytesReceived = 0;
  int64_t TotalBatchesReceived = 0;
  int64_t TotalBatchesEnqueued = 0;
  int64_t TotalRPCsDeferred = 0;
  int64_t DeferredQueueSize = 0; // peak
  double TotalHasDeferredRPCsTime = 0;
  double DeserializeRowBatchTime = 0;
  int64_t TotalEosReceived = 0;
  double DataWaitTime = 0;
  double FirstBatchWaitTime = 0;
  int64_t TotalBytesDequeued = 0;
  int64_t RowsDequeued = 0;
  double ConsumerTime = 0;
  int64_t PeakBytes = 0;
  bool closed = false;
  double end_s = 0;
};

enum class ExchangeStatus { ok, failed, cancelled };
const char* to_string(ExchangeStatus s);

class ExchangeRun {
public:
  ExchangeRun(Simulation& sim, int index, const ExchangeSpec& spec);

  Simulation& sim;
  const int index;
  const ExchangeSpec& spec;

  std::vector<std::unique_ptr<ReceiverEndpoint>> to_receiver; // per receiver instance, from launch
  std::vector<ResponseQueue> to_sender;   // per sender instance: responses
  std::vector<SenderCounters> senders;
  std::vector<ReceiverCounters> receivers;
  std::vector<bool> sender_alive;
  std::vector<bool> receiver_alive;

  ExchangeStatus status = ExchangeStatus::ok;
  std::string error;
  bool aborted = false;
  bool started = false;
  double start_s = 0;
  double end_s = 0;

  // Memory held right now and at peak, summed over the exchange's instances.
  int64_t sender_bytes = 0, sender_bytes_peak = 0;
  int64_t receiver_bytes = 0, receiver_bytes_peak = 0;
  void add_sender_bytes(int64_t delta);
  void add_receiver_bytes(int64_t delta);

  // First time at or after which an RPC on channel (sender, receiver) fails, if any.
  double rpc_error_time(int sender, int receiver) const;

  // Lifecycle: the launcher actor waits for dependencies, then starts every instance.
  void launch();
  void instance_done();
  // Stops the exchange (failure or cancellation): every instance is told, in-flight RPCs are
  // answered without data, and the exchange ends when every instance has torn down.
  void abort(ExchangeStatus why, const std::string& reason);

  sg4::SemaphorePtr done_signal; // released once per dependent when the exchange ends
  int dependents = 0;

private:
  void run_fault(const FaultSpec& f);
  void finish();

  int live_ = 0;
  std::map<std::pair<int, int>, double> rpc_errors_;
};

} // namespace exsim
