// How a transfer's bytes cross the cluster, for the data-stream connections (sim/connection.hpp).
// Two implementations of one interface, one per solver of the registered network models
// (models/network/network_model, chosen by the scenario's cluster.network_model):
// - exsim's own max-min sharing (models/network/network_share: "exsim", exact, and "approx", its
//   bounded re-solves), plugged into SimGrid's engine as a resource model of its own: the engine
//   asks it for its next completion with the other models and tells it each time the clock moves.
//   Its cost per event does not grow with hosts squared, as SimGrid's solver's does on this
//   topology.
// - SimGrid's CM02 model ("simgrid"), each transfer a host-to-host comm started by maestro. The
//   reference the first is tested against.
// Both deliver at the same point of the engine's loop: when the clock has moved to an instant,
// right after SimGrid's network model has ended its comms, transfers that end at that instant are
// reported in order of their start (before the kernel timers and actors of that instant run).
//   std::unique_ptr<TransferNetwork> net = make_transfer_network(cluster.network_model, platform);
//   net->start(from_host, to_host, bytes, &sink);   // sink.transfer_done() once it has arrived
#pragma once

#include "models/config/settings.hpp"
#include "models/network/network_share.hpp"
#include "sim/platform.hpp"

#include <simgrid/s4u.hpp>

#include <memory>
#include <unordered_map>
#include <vector>

namespace exsim {

class SimClock;

class TransferSink {
public:
  // Called in the simulation kernel when the transfer's last byte has arrived: it may start
  // transfers and set timers, but must not block.
  virtual void transfer_done() = 0;

protected:
  ~TransferSink() = default;
};

class TransferNetwork {
public:
  TransferNetwork();
  TransferNetwork(const TransferNetwork&) = delete;
  TransferNetwork& operator=(const TransferNetwork&) = delete;
  virtual ~TransferNetwork();

  // Starts moving `bytes` from host `from` to host `to` now (from an actor, a timer or a
  // transfer_done); `sink` is told when the last byte has arrived.
  virtual void start(int from, int to, double bytes, TransferSink* sink) = 0;

  // For the engine (through the resource model that forwards to it): seconds from `now` to this
  // network's next event, or -1 for none; and the clock has moved to `now`.
  virtual double next_event(double now) = 0;
  virtual void clock_moved(double now) = 0;

  // `clock` drives this network from now on (SimClock::run_ahead): the time of a start is its
  // now(), and the engine no longer asks for next_event nor calls clock_moved.
  void follow(const SimClock& clock);

protected:
  double now() const; // the engine's time, or the following clock's

private:
  class EngineModel;
  std::shared_ptr<EngineModel> engine_model_;
  const SimClock* clock_ = nullptr;
};

std::unique_ptr<TransferNetwork> make_transfer_network(NetworkModel model, const Platform& platform);

// exsim's model (and its approximation, slack > 0: NetworkPrecision): its own completions stop
// the clock.
class ExsimTransferNetwork : public TransferNetwork {
public:
  explicit ExsimTransferNetwork(const Platform& platform, double slack = 0);

  void start(int from, int to, double bytes, TransferSink* sink) override;
  double next_event(double now) override;
  void clock_moved(double now) override;
  const NetworkShare& model() const { return model_; }

private:
  NetworkShare model_; // over hosts: daemons on one host share its links
  Routes routes_;      // which host each daemon is on
  std::vector<TransferSink*> sinks_; // by NetworkShare::index(id)
  std::vector<uint64_t> finished_;
  std::vector<TransferSink*> due_;
};

// SimGrid's CM02 model: one maestro-started comm per transfer.
class SimgridTransferNetwork : public TransferNetwork {
public:
  explicit SimgridTransferNetwork(const Platform& platform);
  ~SimgridTransferNetwork() override;

  void start(int from, int to, double bytes, TransferSink* sink) override;
  double next_event(double) override { return -1; } // SimGrid's own model has the events
  void clock_moved(double now) override;

private:
  std::vector<sg4::Host*> hosts_;
  simgrid::kernel::resource::Model* cm02_ = nullptr;
  struct Pending {
    sg4::CommPtr comm;
    TransferSink* sink;
    uint64_t started;
  };
  std::unordered_map<const void*, Pending> pending_; // by the comm's kernel activity
  uint64_t starts_ = 0;
  std::vector<Pending> due_;
  // Ended comms, kept until SimGrid has finished with them (its next round).
  std::vector<sg4::CommPtr> retired_;
};

} // namespace exsim
