#include "sim/network.hpp"

#include "sim/clock.hpp"

#include <simgrid/kernel/resource/Action.hpp>
#include <simgrid/kernel/resource/Model.hpp>
#include <simgrid/simix.hpp>
#include <xbt/config.hpp>

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace exsim {

// The network as a SimGrid resource model: the engine takes the earliest next event over its
// models (and kernel timers) to move the clock, then calls every model's update in the order they
// were added, which puts this one after SimGrid's own CPU and network models.
class TransferNetwork::EngineModel : public simgrid::kernel::resource::Model {
public:
  explicit EngineModel(TransferNetwork* net) : Model("exsim-network"), net_(net) {}
  double next_occurring_event(double now) override { return net_ != nullptr ? net_->next_event(now) : -1; }
  void update_actions_state(double now, double /*delta*/) override {
    if (net_ != nullptr) net_->clock_moved(now);
  }
  TransferNetwork* net_;
};

TransferNetwork::TransferNetwork() : engine_model_(std::make_shared<EngineModel>(this)) {
  sg4::Engine::get_instance()->add_model(engine_model_);
}

TransferNetwork::~TransferNetwork() {
  engine_model_->net_ = nullptr;
} // the engine may outlive the network

void TransferNetwork::follow(const SimClock& clock) {
  clock_ = &clock;
  engine_model_->net_ = nullptr;
}

double TransferNetwork::now() const { return clock_ != nullptr ? clock_->now() : sg4::Engine::get_clock(); }

// The adapter of the model's registered solver (models/network/network_model).
std::unique_ptr<TransferNetwork> make_transfer_network(NetworkModel model, const Platform& platform) {
  const NetworkModelKind& kind = network_model_kind(model);
  switch (kind.solver) {
  case NetworkModelKind::Solver::engine:
    return std::make_unique<SimgridTransferNetwork>(platform);
  case NetworkModelKind::Solver::share:
    break;
  case NetworkModelKind::Solver::chosen:
    throw std::logic_error("make_transfer_network: resolve_network_model first");
  }
  return std::make_unique<ExsimTransferNetwork>(platform, kind.slack);
}

// ---------------------------------------------------------------------------------------------
// exsim's model.

namespace {

// SimGrid's numerical precisions, so that the two models round alike even if they are changed
// on the command line (--cfg=maxmin/precision:..., --cfg=surf/precision:...).
NetworkPrecision simgrid_precision(double slack) {
  NetworkPrecision p;
  p.share = simgrid::config::get_value<double>("maxmin/precision");
  p.time = simgrid::config::get_value<double>("surf/precision");
  p.slack = slack;
  return p;
}

} // namespace

ExsimTransferNetwork::ExsimTransferNetwork(const Platform& p, double slack)
    : model_(p.host_count, p.nic_bytes_per_s, p.loopback_bytes_per_s, simgrid_precision(slack)),
      routes_(p.routes) {}

void ExsimTransferNetwork::start(int from, int to, double bytes, TransferSink* sink) {
  const uint64_t id = model_.start(now(), routes_.host_of(from), routes_.host_of(to), bytes);
  const size_t i = NetworkShare::index(id);
  if (i >= sinks_.size()) sinks_.resize(i + 1, nullptr);
  sinks_[i] = sink;
}

double ExsimTransferNetwork::next_event(double now) {
  const double next = model_.next_completion(); // solves this instant's changes
  return std::isinf(next) ? -1 : std::max(0.0, next - now);
}

// Whatever made the clock stop here, SimGrid ends every transfer due within surf/precision of it:
// complete_next applies that rule.
void ExsimTransferNetwork::clock_moved(double now) {
  finished_.clear();
  model_.complete_next(now, finished_);
  if (finished_.empty()) return;
  // Sinks first: a transfer_done may start a transfer that reuses a finished one's index.
  due_.clear();
  for (uint64_t id : finished_) {
    const size_t i = NetworkShare::index(id);
    due_.push_back(sinks_[i]);
    sinks_[i] = nullptr;
  }
  for (TransferSink* s : due_)
    s->transfer_done();
}

// ---------------------------------------------------------------------------------------------
// SimGrid's model.

SimgridTransferNetwork::SimgridTransferNetwork(const Platform& p) : hosts_(p.hosts) {
  for (auto* m : sg4::Engine::get_instance()->get_all_models())
    if (m->get_name() == "Network_CM02") cm02_ = m;
  if (cm02_ == nullptr)
    throw std::logic_error(
        "network_model simgrid: SimGrid's CM02 network model is not loaded (configure_engine)");
}

SimgridTransferNetwork::~SimgridTransferNetwork() = default;

void SimgridTransferNetwork::start(int from, int to, double bytes, TransferSink* sink) {
  // Started by maestro, the comm belongs to no actor and nobody waits for it: its end is found
  // in the CM02 model's finished actions.
  simgrid::kernel::actor::simcall_answered([this, from, to, bytes, sink] {
    sg4::CommPtr c =
        sg4::Comm::sendto_async(hosts_.at(static_cast<size_t>(from)), hosts_.at(static_cast<size_t>(to)),
                                static_cast<uint64_t>(bytes));
    if (c->get_state() == sg4::Activity::State::INITED) c->start(); // sendto_async may have started it
    pending_.emplace(c->get_impl(), Pending{c, sink, starts_++});
  });
}

// Runs right after CM02 has ended its comms of this instant, before SimGrid reports them.
void SimgridTransferNetwork::clock_moved(double /*now*/) {
  retired_.clear(); // SimGrid has reported last round's comms by now
  due_.clear();
  for (const auto& action : *cm02_->get_finished_action_set()) {
    auto it = pending_.find(action.get_activity());
    if (it == pending_.end()) continue;
    due_.push_back(std::move(it->second));
    pending_.erase(it);
  }
  if (due_.empty()) return;
  std::sort(due_.begin(), due_.end(),
            [](const Pending& a, const Pending& b) { return a.started < b.started; });
  for (Pending& p : due_)
    retired_.push_back(std::move(p.comm));
  for (const Pending& p : due_)
    p.sink->transfer_done();
}

} // namespace exsim
