// exsim's network model (models/network/network_share behind sim/network) against SimGrid's CM02 model on
// the real platform. The expectation is SimGrid's own: the same transfers, started at the same
// times (or back to back, as a connection sends them), end at the same times when they are
// SimGrid comms sent by actors with Comm::sendto as when they go through exsim's model, to 1e-9
// relative. The same check covers the reference path the connections use (SimgridTransferNetwork).
#include "sim_support.hpp"

#include "models/core/rng.hpp"
#include "sim/network.hpp"
#include "sim/platform.hpp"

#include <fmt/format.h>
#include <simgrid/s4u.hpp>
#include <xbt/log.h>

#include <algorithm>
#include <cmath>
#include <memory>
#include <string>
#include <vector>

using exsim::test::in_child;
using exsim::test::json;

namespace {

namespace sg4 = simgrid::s4u;

// Transfers from one host to another, back to back from `start_s` on (one transfer at a time,
// as a connection sends its requests).
struct Chain {
  double start_s;
  int from;
  int to;
  std::vector<uint64_t> bytes;
};

enum class Path { sendto, exsim, simgrid_network };

// A chain driven through a TransferNetwork: each transfer's end starts the next one.
class ChainSink : public exsim::TransferSink {
public:
  ChainSink(exsim::TransferNetwork& net, const Chain& c, std::vector<double>& ends) : net_(net), c_(c), ends_(ends) {}
  void next() {
    if (i_ < c_.bytes.size()) net_.start(c_.from, c_.to, static_cast<double>(c_.bytes[i_]), this);
  }
  void transfer_done() override {
    ends_[i_++] = sg4::Engine::get_clock();
    next();
  }

private:
  exsim::TransferNetwork& net_;
  const Chain& c_;
  std::vector<double>& ends_;
  size_t i_ = 0;
};

// Simulates `chains` on `hosts` executors (12.5 Gbit/s NICs, 100 Gbit/s loopback) along one path
// and returns every transfer's end time, chain by chain.
json end_times(const std::vector<Chain>& chains, int hosts, Path path) {
  return in_child([&] {
    const auto engine = exsim::test::quiet_engine();
    exsim::ClusterSpec cluster{};
    cluster.daemons_per_host = 1;
    cluster.executors = hosts;
    cluster.cores_per_executor = 1;
    cluster.nic_bandwidth_gbps = 12.5;
    cluster.loopback_bandwidth_gbps = 100;
    const exsim::Platform p = exsim::build_platform(cluster);
    std::vector<std::vector<double>> ends(chains.size());
    for (size_t i = 0; i < chains.size(); ++i)
      ends[i].assign(chains[i].bytes.size(), -1);
    std::unique_ptr<exsim::TransferNetwork> net;
    if (path == Path::exsim) net = exsim::make_transfer_network(exsim::NetworkModel::exsim, p);
    if (path == Path::simgrid_network) net = exsim::make_transfer_network(exsim::NetworkModel::simgrid, p);
    std::vector<std::unique_ptr<ChainSink>> sinks;
    for (size_t i = 0; i < chains.size(); ++i) {
      const Chain& c = chains[i];
      std::vector<double>& e = ends[i];
      if (path == Path::sendto) {
        sg4::Actor::create("chain", p.hosts.at(static_cast<size_t>(c.from)), [&c, &e, &p] {
          sg4::this_actor::sleep_until(c.start_s);
          for (size_t k = 0; k < c.bytes.size(); ++k) {
            sg4::Comm::sendto(p.hosts.at(static_cast<size_t>(c.from)), p.hosts.at(static_cast<size_t>(c.to)),
                              c.bytes[k]);
            e[k] = sg4::Engine::get_clock();
          }
        });
      } else {
        sinks.push_back(std::make_unique<ChainSink>(*net, c, e));
        ChainSink* s = sinks.back().get();
        sg4::Actor::create("chain", p.hosts.at(static_cast<size_t>(c.from)), [&c, s] {
          sg4::this_actor::sleep_until(c.start_s);
          s->next();
        });
      }
    }
    engine->run();
    return json(ends);
  });
}

// Runs the chains along the three paths and checks exsim's model and the reference adapter
// against SimGrid's comms, to 1e-9 relative.
void compare(const std::string& what, const std::vector<Chain>& chains, int hosts) {
  const json sendto = end_times(chains, hosts, Path::sendto);
  const json exsim = end_times(chains, hosts, Path::exsim);
  const json reference = end_times(chains, hosts, Path::simgrid_network);
  double worst = 0, worst_ref = 0, last = 0, last_exsim = 0;
  size_t transfers = 0;
  for (size_t i = 0; i < chains.size(); ++i)
    for (size_t k = 0; k < chains[i].bytes.size(); ++k) {
      const double expected = sendto[i][k].get<double>();
      const double got = exsim[i][k].get<double>();
      REQUIRE(expected > 0);
      REQUIRE(got > 0);
      worst = std::max(worst, std::abs(got - expected) / expected);
      worst_ref = std::max(worst_ref, std::abs(reference[i][k].get<double>() - expected) / expected);
      if (expected > last) {
        last = expected;
        last_exsim = got;
      }
      transfers++;
    }
  std::printf("%-58s expected %.12g, simulated %.12g\n", (what + ": last end (s)").c_str(), last, last_exsim);
  std::printf("%-58s %zu transfers, worst relative difference %.3g (reference path %.3g)\n", what.c_str(),
              transfers, worst, worst_ref);
  CHECK(worst <= 1e-9);
  CHECK(worst_ref <= 1e-9);
}

uint64_t size(exsim::Rng& rng) {
  return 1000 + static_cast<uint64_t>(rng.uniform() * 2e6);
}

} // namespace

TEST_CASE("network vs SimGrid: fan-in, n senders to one receiver", "[sim][network]") {
  exsim::Rng rng(1);
  for (int n : {2, 5, 10, 40}) {
    std::vector<Chain> chains;
    for (int s = 1; s < n; ++s)
      chains.push_back({0, s, 0, {size(rng), size(rng), size(rng)}});
    compare(fmt::format("fan-in to 1 of {} hosts", n), chains, n);
  }
}

TEST_CASE("network vs SimGrid: fan-out, one sender to n receivers", "[sim][network]") {
  exsim::Rng rng(2);
  for (int n : {2, 5, 10, 40}) {
    std::vector<Chain> chains;
    for (int d = 1; d < n; ++d)
      chains.push_back({0, 0, d, {size(rng), size(rng), size(rng)}});
    compare(fmt::format("fan-out from 1 of {} hosts", n), chains, n);
  }
}

TEST_CASE("network vs SimGrid: all-to-all, every ordered pair and loopback", "[sim][network]") {
  exsim::Rng rng(3);
  for (int n : {2, 5, 10, 20, 40}) {
    std::vector<Chain> chains;
    const int per_chain = n <= 10 ? 4 : 2;
    for (int s = 0; s < n; ++s)
      for (int d = 0; d < n; ++d) {
        Chain c{0, s, d, {}};
        for (int k = 0; k < per_chain; ++k)
          c.bytes.push_back(size(rng));
        chains.push_back(c);
      }
    compare(fmt::format("all-to-all among {} hosts", n), chains, n);
  }
}

TEST_CASE("network vs SimGrid: staggered starts on random pairs", "[sim][network]") {
  // Transfers start at random microseconds within 5 ms, a tenth of them to the same host, with
  // equal sizes now and then so that ends coincide; 300 chains of one to three transfers.
  exsim::Rng rng(4);
  for (int n : {3, 8, 40}) {
    std::vector<Chain> chains;
    for (int i = 0; i < 300; ++i) {
      const int s = static_cast<int>(rng.uniform() * n);
      const int d = rng.uniform() < 0.1 ? s : static_cast<int>(rng.uniform() * n);
      Chain c{std::floor(rng.uniform() * 5000) * 1e-6, s, d, {}};
      const int k = 1 + static_cast<int>(rng.uniform() * 3);
      for (int j = 0; j < k; ++j)
        c.bytes.push_back(rng.uniform() < 0.3 ? 65536 : size(rng));
      chains.push_back(c);
    }
    compare(fmt::format("staggered starts among {} hosts", n), chains, n);
  }
}

TEST_CASE("network vs SimGrid: transfers due within surf/precision of an event end with it",
          "[sim][network]") {
  // SimGrid ends a transfer at any event less than 1e-9 s before it is due. (a) 0->1 moves 1 MB
  // alone, due at 0.64 ms; 2->1 starts 0.4 ns earlier: 0->1 ends then, not 0.8 ns later at half
  // the downlink. (b) Two loopback transfers on host 3 one byte apart (0.16 ns at half the
  // loopback link): both end at the first one's time.
  const double due = 1e6 / 1.5625e9;
  compare("a start 0.4 ns before a transfer is due",
          {{0, 0, 1, {1000000}}, {due - 0.4e-9, 2, 1, {1000000}}, {0, 3, 3, {2000000}}, {0, 3, 3, {2000001}}},
          4);
}
