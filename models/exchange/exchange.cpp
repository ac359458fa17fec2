#include "models/exchange/exchange.hpp"

#include "models/daemon/cluster.hpp"
#include "models/exchange/receiver.hpp"

#include <fmt/format.h>

#include <algorithm>

namespace exsim {

const char* to_string(ExchangeStatus s) {
  switch (s) {
  case ExchangeStatus::ok:
    return "ok";
  case ExchangeStatus::failed:
    return "failed";
  case ExchangeStatus::cancelled:
    return "cancelled";
  }
  return "?";
}

ExchangeRuntime::ExchangeRuntime(Cluster& c, const ExchangeSpec& sp, uint64_t sd, const bool& stop,
                                 std::function<void(ExchangeStatus, const std::string&)> abort_query)
    : cluster(c), spec(sp), seed(sd), stopping(stop), senders(static_cast<size_t>(sp.senders())),
      receivers(static_cast<size_t>(sp.receivers())), abort_query_(std::move(abort_query)) {
  for (int s = 0; s < sp.senders(); ++s)
    senders[static_cast<size_t>(s)].host = sp.sender_host(s);
  for (int r = 0; r < sp.receivers(); ++r)
    receivers[static_cast<size_t>(r)].host = sp.receiver_host(r);
  for (const FaultSpec& f : sp.faults)
    if (f.kind == FaultKind::rpc_error) {
      auto key = std::make_pair(f.sender, f.receiver);
      auto it = rpc_errors_.find(key);
      if (it == rpc_errors_.end() || f.at_s < it->second) rpc_errors_[key] = f.at_s;
    }
}

ExchangeRuntime::~ExchangeRuntime() = default;

void ExchangeRuntime::add_sender_bytes(int64_t delta) {
  sender_bytes += delta;
  sender_bytes_peak = std::max(sender_bytes_peak, sender_bytes);
}

void ExchangeRuntime::add_receiver_bytes(int64_t delta) {
  receiver_bytes += delta;
  receiver_bytes_peak = std::max(receiver_bytes_peak, receiver_bytes);
}

double ExchangeRuntime::rpc_error_time(int sender, int receiver) const {
  if (rpc_errors_.empty()) return std::numeric_limits<double>::infinity();
  auto it = rpc_errors_.find({sender, receiver});
  return it == rpc_errors_.end() ? std::numeric_limits<double>::infinity() : it->second;
}

void ExchangeRuntime::start_receivers() {
  if (started) return;
  started = true;
  start_s = cluster.sched.now();
  live_ = spec.senders() + spec.receivers();
  for (int r = 0; r < spec.receivers(); ++r)
    receiver_objects.push_back(std::make_unique<Receiver>(*this, r));
  for (size_t i = 0; i < spec.faults.size(); ++i)
    if (spec.faults[i].kind != FaultKind::rpc_error)
      cluster.sched.at(spec.faults[i].at_s, Callback::of<&ExchangeRuntime::fault>(this, i));
}

void ExchangeRuntime::sender_started(int index) { senders.at(static_cast<size_t>(index)).start_s = cluster.sched.now(); }

void ExchangeRuntime::fault(uint64_t i) {
  const FaultSpec& f = spec.faults.at(i);
  if (live_ == 0 || stopping) return;
  if (f.kind == FaultKind::cancel) {
    abort_query_(ExchangeStatus::cancelled, fmt::format("query cancelled at {} s", f.at_s));
    return;
  }
  Receiver& r = *receiver_objects.at(static_cast<size_t>(f.receiver));
  if (!r.ended()) r.close();
}

void ExchangeRuntime::instance_done(const Path* path) {
  if (path && path->total() > end_path.total()) end_path = *path;
  if (--live_ == 0) {
    end_s = cluster.sched.now();
    done.set(cluster.sched);
  }
}

void ExchangeRuntime::stop(ExchangeStatus why, const std::string& reason) {
  if (!started) {
    status = ExchangeStatus::cancelled;
    error = "query aborted before this exchange started";
    return;
  }
  if (live_ == 0) return; // it had ended: its result stands
  status = why;
  error = reason;
  for (auto& r : receiver_objects)
    if (!r->ended()) r->cancel();
}

} // namespace exsim
