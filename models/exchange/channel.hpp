// A sender channel with K slots (the IMPALA-15519 design): each slot holds the state of one
// in-flight RPC; TransmitData may start only while fewer than K RPCs are in flight; flush and
// end of stream wait for all of them; the first RPC error is kept; teardown waits for every slot.
// The slots are a models/window/window.hpp window (no byte limit) plus each RPC's own state; its policy
// says how many may be in flight now: K, or an adaptive K up to its cap.
// The channel is pure bookkeeping: the engine glue decides when time passes.
//   exsim::Channel ch(/*k=*/2);
//   int slot = ch.start_rpc(now, bytes, rows, /*eos=*/false);   // requires ch.has_free_slot()
//   exsim::RpcOutcome done = ch.finish_rpc(slot, now, exsim::RpcStatus::ok);
#pragma once

#include "models/core/small_array.hpp"
#include "models/window/window.hpp"

#include <cstdint>
#include <optional>
#include <string>

namespace exsim {

enum class RpcStatus { ok, receiver_closed, error, cancelled };

const char* to_string(RpcStatus s);

struct Slot {
  bool in_flight = false;
  bool eos = false;
  double start_time = 0;
  int64_t wire_bytes = 0;
  int64_t rows = 0;
};

struct RpcOutcome {
  RpcStatus status = RpcStatus::ok;
  bool eos = false;
  double duration = 0; // request sent until response processed
  int64_t wire_bytes = 0;
  int64_t rows = 0;
};

class Channel {
public:
  explicit Channel(int k);
  explicit Channel(const WindowPolicySpec& policy);

  // RPCs that may be in flight now.
  int k() const { return window_.limit(); }
  const WindowPolicy& policy() const { return window_.policy(); }
  int in_flight() const { return window_.in_flight(); }
  bool has_free_slot() const { return window_.has_free_slot(); }
  bool idle() const { return window_.idle(); }

  // Occupies a free slot and returns its index. Precondition: has_free_slot().
  int start_rpc(double now, int64_t wire_bytes, int64_t rows, bool eos);
  const Slot& slot(int index) const { return slots_.at(index); }

  // Releases the slot and records the outcome; keeps the first error. The receiver-closed answer
  // marks the channel closed: later batches are dropped without an RPC, as Impala does.
  RpcOutcome finish_rpc(int index, double now, RpcStatus status, const std::string& error_detail = "");

  bool receiver_closed() const { return receiver_closed_; }
  const std::string* first_error() const { return window_.first_error(); } // nullptr: none

private:
  Window window_;
  SmallArray<Slot, 2> slots_; // per window slot: the RPC it carries (inline for K <= 2)
  bool receiver_closed_ = false;
};

} // namespace exsim
