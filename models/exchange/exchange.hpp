// One exchange at run time: its counters (named as in Impala's profiles), its receivers, its
// lifecycle (it starts with its first instance and ends when every sender and receiver instance
// has ended) and the faults injected into it.
#pragma once

#include "models/core/critical_path.hpp"
#include "models/cpu/thread.hpp"
#include "models/exchange/exchange_spec.hpp"
#include "models/exchange/rpc.hpp"

#include <functional>
#include <limits>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace exsim {

class Cluster;
class Receiver;
class Sender;

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
  // Under an adaptive K: the channels' K integrated over their lives (from their first RPC to the
  // sender's end) and those lives' total, the largest K, and each channel's change points when asked.
  double k_area = 0;
  double k_span_s = 0;
  int k_max = 0;
  std::vector<std::vector<std::pair<double, int>>> k_series; // per receiver: (time, K from then on)
  std::string error;
  double start_s = 0;
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
  double ConsumerTime = 0; // CPU time of the thread reading the exchange, while it read it
  int64_t PeakBytes = 0;
  bool closed = false;
  double start_s = 0;
  double end_s = 0;
};

enum class ExchangeStatus { ok, failed, cancelled };
const char* to_string(ExchangeStatus s);

class ExchangeRuntime {
public:
  // `abort_query` stops the query the exchange belongs to (an RPC error, a cancel fault).
  ExchangeRuntime(Cluster& c, const ExchangeSpec& spec, uint64_t seed, const bool& stopping,
                  std::function<void(ExchangeStatus, const std::string&)> abort_query);
  ~ExchangeRuntime();

  Cluster& cluster;
  const ExchangeSpec& spec;
  const uint64_t seed;
  const bool& stopping; // the query is being stopped
  RequestPool requests; // the exchange's RPCs, recycled (it outlives the senders and receivers here)

  std::vector<SenderCounters> senders;
  std::vector<ReceiverCounters> receivers;
  std::vector<std::unique_ptr<Receiver>> receiver_objects; // created by start_receivers()

  ExchangeStatus status = ExchangeStatus::ok;
  std::string error;
  bool started = false;
  double start_s = 0;
  double end_s = 0;
  Signal done;   // set when every instance has ended
  Path end_path; // the critical path of the instance that ended last: what a fragment `after` it waited for

  // Memory held now and at peak, summed over the exchange's instances.
  int64_t sender_bytes = 0, sender_bytes_peak = 0;
  int64_t receiver_bytes = 0, receiver_bytes_peak = 0;
  void add_sender_bytes(int64_t delta);
  void add_receiver_bytes(int64_t delta);

  // The receivers exist from now on; schedules the exchange's timed faults.
  void start_receivers();
  void sender_started(int index);
  // `path`: the ending instance's thread's critical path (none when it was stopped).
  void instance_done(const Path* path = nullptr);
  // First time at or after which an RPC on channel (sender, receiver) fails, if any.
  double rpc_error_time(int sender, int receiver) const;
  // The query is failing or being cancelled: receivers answer everything at once and wake their
  // consumer; senders are woken by the query.
  void stop(ExchangeStatus why, const std::string& reason);
  void fail_query(ExchangeStatus why, const std::string& reason) { abort_query_(why, reason); }
  bool finished() const { return started && live_ == 0; }

private:
  void fault(uint64_t index);
  void mark_started();

  std::function<void(ExchangeStatus, const std::string&)> abort_query_;
  int live_ = 0;
  std::map<std::pair<int, int>, double> rpc_errors_;
};

} // namespace exsim
