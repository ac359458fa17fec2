#include "models/exchange/channel.hpp"

#include <stdexcept>

namespace exsim {

const char* to_string(RpcStatus s) {
  switch (s) {
  case RpcStatus::ok:
    return "ok";
  case RpcStatus::receiver_closed:
    return "receiver_closed";
  case RpcStatus::error:
    return "error";
  case RpcStatus::cancelled:
    return "cancelled";
  }
  return "?";
}

Channel::Channel(int k) : Channel(WindowPolicySpec{.kind = WindowPolicyKind::fixed, .initial = k, .max = k}) {}

Channel::Channel(const WindowPolicySpec& policy)
    : window_(policy), slots_(static_cast<size_t>(window_.capacity())) {}

int Channel::start_rpc(double now, int64_t wire_bytes, int64_t rows, bool eos) {
  if (!window_.has_free_slot())
    throw std::logic_error("Channel::start_rpc: no free slot (caller must wait for one)");
  const int index = window_.start(now, wire_bytes);
  slots_[static_cast<size_t>(index)] = Slot{true, eos, now, wire_bytes, rows};
  return index;
}

RpcOutcome Channel::finish_rpc(int index, double now, RpcStatus status, const std::string& error_detail) {
  Slot& s = slots_.at(static_cast<size_t>(index));
  if (!s.in_flight) throw std::logic_error("Channel::finish_rpc: slot is not in flight");
  RpcOutcome out{status, s.eos, now - s.start_time, s.wire_bytes, s.rows};
  s.in_flight = false;
  window_.finish(index, now);
  if (status == RpcStatus::receiver_closed) receiver_closed_ = true;
  if (status == RpcStatus::error) window_.record_error(error_detail.empty() ? "RPC failed" : error_detail);
  return out;
}

} // namespace exsim
