// The data-stream RPCs as the models exchange them: a TransmitData or EndDataStream request
// travels from a sender to a receiver through the engine's network (the Network port,
// models/core/network_port.hpp), and the same object travels back as the response, which carries
// no payload and costs only the route's latency. The request records when each leg ended, so that
// the time a sender or a consumer waited for it can be split by cause (models/core/critical_path.hpp).
//   exsim::Request* r = pool.get();  ...;  network.send(from_host, to_host, r);
#pragma once

#include "models/core/critical_path.hpp"
#include "models/core/network_port.hpp"
#include "models/core/scheduler.hpp"
#include "models/exchange/channel.hpp"

#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

namespace exsim {

enum class RequestKind { transmit, eos };

struct Request {
  RequestKind kind = RequestKind::transmit;
  Callback on_arrival; // the receiver's delivery (arg: this request)
  Callback on_response; // the sender's completion (arg: this request)
  int sender = 0;      // sender instance
  int receiver = 0;    // receiver instance
  int slot = 0;        // the channel slot it occupies
  int64_t rows = 0;
  int64_t wire_bytes = 0;
  int64_t uncompressed_bytes = 0;
  int64_t accounting_bytes = 0;
  bool compressed = false;
  RpcStatus status = RpcStatus::ok;
  // When each leg ended.
  double sent_at = 0;     // the sender started the RPC
  double ready_at = 0;    // one-way latency spent; it joins its connection's queue
  double arrived_at = 0;  // its payload has been moved: it is at the receiver
  double dispatched_at = 0; // a service thread took it up (rpc_dispatch_us after its arrival)
  double admitted_at = 0; // the receiver took it in (later than arrival if it was deferred)
  double deserializing_at = 0; // a thread started deserializing it
  double enqueued_at = 0; // deserialized and queued for the consumer
  double responded_at = 0;
  SharedPath path;      // the critical path that led to the request, up to path_time
  double path_time = 0; // when `path` ends: its sending, or its admission if a reader's pop let it in

  // The critical path up to `until` (when the request, or its response at the sender, was waited
  // for): `path`, then the legs after path_time, by cause.
  Path path_at(double until) const;
};

// Recycles requests: a simulation does not allocate one per RPC.
class RequestPool {
public:
  RequestPool() = default;
  RequestPool(const RequestPool&) = delete;
  RequestPool& operator=(const RequestPool&) = delete;
  Request* get();
  void put(Request* r);

private:
  // Made kBlock at a time: at a sender's close every channel has its EndDataStream in flight at
  // once (hundreds of thousands at 40 executors, mt_dop=8), one allocation each was a tenth of the
  // run. A block at a time, the pool holds at most kBlock - 1 more than it ever needed.
  static constexpr std::size_t kBlock = 256;
  std::vector<Request*> free_;
  std::vector<std::unique_ptr<Request[]>> blocks_;
};

} // namespace exsim
