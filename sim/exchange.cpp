#include "sim/exchange.hpp"

#include "sim/receiver.hpp"
#include "sim/sender_actor.hpp"
#include "sim/simulation.hpp"

#include <fmt/format.h>
#include <simgrid/kernel/Timer.hpp>

#include <algorithm>
#include <functional>
#include <limits>

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

ExchangeRun::ExchangeRun(Simulation& s, int i, const ExchangeSpec& sp)
    : sim(s), index(i), spec(sp), senders(static_cast<size_t>(sp.senders())),
      receivers(static_cast<size_t>(sp.receivers())), sender_alive(senders.size(), false),
      receiver_alive(receivers.size(), false), done_signal(sg4::Semaphore::create(0)) {
  for (int r = 0; r < sp.receivers(); ++r)
    receivers[static_cast<size_t>(r)].host = sp.receiver_host(r);
  to_receiver.resize(receivers.size());
  to_sender.resize(senders.size());
  for (int s2 = 0; s2 < sp.senders(); ++s2)
    senders[static_cast<size_t>(s2)].host = sp.sender_host(s2);
  for (const FaultSpec& f : sp.faults)
    if (f.kind == FaultKind::rpc_error) {
      auto key = std::make_pair(f.sender, f.receiver);
      auto it = rpc_errors_.find(key);
      if (it == rpc_errors_.end() || f.at_s < it->second) rpc_errors_[key] = f.at_s;
    }
}

void ResponseQueue::push(const Response& r) {
  heap_.push_back({r, seq_++});
  std::push_heap(heap_.begin(), heap_.end(), std::greater<>());
  // One release per response, when it is due: a kernel timer, so that waiting costs the sender
  // no timed activity (timed activities sit in SimGrid's CPU solver until they expire), and so
  // that pushing never lets another actor run in the middle of the pusher's work (a receiver
  // answers from whatever context delivered its event).
  simgrid::kernel::timer::Timer::set(std::max(r.due, sg4::Engine::get_clock()),
                                     [sem = arrivals_] { sem->release(); });
}

Response ResponseQueue::next() {
  arrivals_->acquire(); // one response is due
  std::pop_heap(heap_.begin(), heap_.end(), std::greater<>());
  Response r = heap_.back().response;
  heap_.pop_back();
  return r;
}

void ExchangeRun::add_sender_bytes(int64_t delta) {
  sender_bytes += delta;
  sender_bytes_peak = std::max(sender_bytes_peak, sender_bytes);
}

void ExchangeRun::add_receiver_bytes(int64_t delta) {
  receiver_bytes += delta;
  receiver_bytes_peak = std::max(receiver_bytes_peak, receiver_bytes);
}

double ExchangeRun::rpc_error_time(int sender, int receiver) const {
  if (rpc_errors_.empty()) return std::numeric_limits<double>::infinity();
  auto it = rpc_errors_.find({sender, receiver});
  return it == rpc_errors_.end() ? std::numeric_limits<double>::infinity() : it->second;
}

void ExchangeRun::launch() {
  for (int dep : spec.after)
    sim.exchanges.at(static_cast<size_t>(dep))->done_signal->acquire();
  if (spec.start_s > sg4::Engine::get_clock()) sg4::this_actor::sleep_until(spec.start_s);
  start_s = sg4::Engine::get_clock();
  started = true;
  if (sim.query_aborted(spec.query)) {
    status = ExchangeStatus::cancelled;
    error = "query aborted before this exchange started";
    finish();
    return;
  }
  const auto& hosts = sim.platform.hosts;
  live_ = spec.senders() + spec.receivers();
  for (int r = 0; r < spec.receivers(); ++r) {
    receiver_alive[static_cast<size_t>(r)] = true;
    to_receiver[static_cast<size_t>(r)] = start_receiver(*this, r);
  }
  for (int s = 0; s < spec.senders(); ++s) {
    sender_alive[static_cast<size_t>(s)] = true;
    sg4::Actor::create(fmt::format("x{}-send{}", index, s), hosts.at(spec.sender_host(s)),
                       [this, s] { run_sender(*this, s); });
  }
  for (const FaultSpec& f : spec.faults)
    if (f.kind != FaultKind::rpc_error) {
      sg4::Host* host =
          f.kind == FaultKind::receiver_close ? hosts.at(spec.receiver_host(f.receiver)) : hosts.at(0);
      sg4::Actor::create(fmt::format("x{}-fault", index), host, [this, f] { run_fault(f); })->daemonize();
    }
}

void ExchangeRun::run_fault(const FaultSpec& f) {
  sg4::this_actor::sleep_until(f.at_s);
  if (live_ == 0 || aborted) return;
  if (f.kind == FaultKind::cancel) {
    sim.abort_query(*this, ExchangeStatus::cancelled, fmt::format("query cancelled at {} s", f.at_s));
    return;
  }
  if (!receiver_alive[static_cast<size_t>(f.receiver)]) return;
  to_receiver[static_cast<size_t>(f.receiver)]->close();
}

void ExchangeRun::abort(ExchangeStatus why, const std::string& reason) {
  if (aborted) return;
  if (!started || live_ == 0) {
    if (!started) {
      status = why;
      error = reason;
    }
    return;
  }
  aborted = true;
  status = why;
  error = reason;
  // The coordinator's cancellation reaches every receiver at once and every sender as a wake-up.
  for (size_t r = 0; r < receivers.size(); ++r)
    if (receiver_alive[r]) to_receiver[r]->cancel();
  for (size_t s = 0; s < senders.size(); ++s)
    if (sender_alive[s])
      to_sender[s].push(Response{-1, -1, RpcStatus::cancelled, 0, sg4::Engine::get_clock()});
}

void ExchangeRun::instance_done() {
  if (--live_ == 0) finish();
}

void ExchangeRun::finish() {
  end_s = sg4::Engine::get_clock();
  sim.exchanges_finished++;
  for (int i = 0; i < dependents; ++i)
    done_signal->release();
}

} // namespace exsim
