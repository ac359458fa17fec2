// SimClock::run_ahead against the engine's own loop. Expectation: the clock running ahead moves
// time exactly as SimGrid's loop does (the least delta to the Scheduler's next event and the
// network's next completion, added to the clock), so the same requests and events give the same
// times as doubles, bit for bit; and a lone request arrives at latency + bytes / NIC bandwidth.
#include "sim_support.hpp"

#include "models/core/rng.hpp"
#include "sim/clock.hpp"
#include "sim/connection.hpp"
#include "sim/platform.hpp"

#include <simgrid/s4u.hpp>
#include <xbt/log.h>

#include <memory>
#include <vector>

using exsim::test::in_child;
using exsim::test::json;

namespace {

namespace sg4 = simgrid::s4u;

// Requests between 4 executors, sent at pseudo-random times (some at the same instant, some
// while their connection is busy), each arrival answered by an event one route latency later;
// returns every arrival and answer time.
struct Traffic {
  exsim::Scheduler& sched;
  exsim::Network& net;
  exsim::RequestPool pool;
  std::vector<double> times;

  void send(uint64_t i) {
    exsim::Request* r = pool.get();
    r->wire_bytes = static_cast<int64_t>(1000 + (i * 7919) % 200000) * (i % 5 == 0 ? 0 : 1);
    r->on_arrival = exsim::Callback::of<&Traffic::arrived>(this, reinterpret_cast<uint64_t>(r));
    net.send(static_cast<int>(i % 4), static_cast<int>((i / 4) % 4), r);
  }
  void arrived(uint64_t p) {
    auto* r = reinterpret_cast<exsim::Request*>(p);
    times.push_back(r->arrived_at);
    sched.at(sched.now() + 195e-6, exsim::Callback::of<&Traffic::answered>(this, p));
  }
  void answered(uint64_t p) {
    times.push_back(sched.now());
    pool.put(reinterpret_cast<exsim::Request*>(p));
  }
};

// Request i is sent at sends[i].
json traffic_times(bool ahead, const std::vector<double>& sends) {
  return in_child([&] {
    const auto engine = exsim::test::quiet_engine();
    exsim::ClusterSpec cluster{};
    cluster.daemons_per_host = 1;
    cluster.executors = 4;
    cluster.cores_per_executor = 1;
    cluster.nic_bandwidth_gbps = 12.5;
    cluster.loopback_bandwidth_gbps = 100;
    cluster.rtt_us = 390;
    cluster.loopback_rtt_us = 20;
    const exsim::Platform p = exsim::build_platform(cluster);
    exsim::Scheduler sched;
    exsim::SimClock clock(sched);
    exsim::ConnectionNetwork net(p, exsim::NetworkModel::exsim, clock, sched);
    if (ahead) clock.run_ahead(net.transfers());
    Traffic t{sched, net, {}, {}};
    for (size_t i = 0; i < sends.size(); ++i)
      sched.at(sends[i], exsim::Callback::of<&Traffic::send>(&t, i));
    sg4::Actor::create("driver", p.hosts.at(0), [] {}); // the engine runs while an actor lives
    engine->run();
    return json(t.times);
  });
}

} // namespace

TEST_CASE("clock running ahead: the same times as the engine's loop, bit for bit", "[sim][clock]") {
  exsim::Rng rng(7);
  std::vector<double> sends;
  for (int i = 0; i < 400; ++i)
    sends.push_back(static_cast<double>(rng.below(50)) * 1e-5);
  const json engine = traffic_times(false, sends);
  const json ahead = traffic_times(true, sends);
  REQUIRE(engine.size() == 800);
  REQUIRE(ahead.size() == engine.size());
  for (size_t i = 0; i < engine.size(); ++i) {
    INFO("time " << i << ": engine " << engine[i].get<double>() << ", ahead " << ahead[i].get<double>());
    REQUIRE(ahead[i].get<double>() == engine[i].get<double>());
  }
}

TEST_CASE("clock running ahead: a lone request arrives after latency plus bytes over bandwidth", "[sim][clock]") {
  // Request 1 (8919 bytes, executor 1 to 0) alone: half the 390 us round trip, then 8919 bytes at
  // 12.5 Gbit/s; its answer half a round trip later.
  const json ahead = traffic_times(true, {1.0, 0.0});
  REQUIRE(ahead.size() == 4);
  const double arrival = 195e-6 + 8919 / 1.5625e9;
  CHECK(ahead[0].get<double>() == Approx(arrival).epsilon(1e-12));
  CHECK(ahead[1].get<double>() == Approx(arrival + 195e-6).epsilon(1e-12));
}
