// HostCpu keeps the sharing of a host's cores itself (models/cpu/shared_cpu), on the models' Scheduler
// driven by SimGrid's clock, instead of starting a SimGrid execution per piece of work. The
// expectation here is SimGrid's own rule (one hardware thread per core): the same pieces, started
// at the same times, finish at the same times on a host running them as SimGrid executions as on
// a host running them through HostCpu.
#include "sim_support.hpp"

#include "models/core/rng.hpp"
#include "models/cpu/host_cpu.hpp"
#include "sim/clock.hpp"
#include "sim/platform.hpp"

#include <fmt/format.h>
#include <simgrid/s4u.hpp>
#include <xbt/log.h>

#include <algorithm>
#include <cmath>
#include <memory>

using exsim::test::in_child;
using exsim::test::json;

namespace {

namespace sg4 = simgrid::s4u;

struct Piece {
  double start_s;
  double ns;
};

// Runs `pieces` on executor 0 as SimGrid executions (an actor each) and through HostCpu (an event
// each); returns both lists of finish times.
json finish_times(const std::vector<Piece>& pieces, int cores) {
  return in_child([&] {
    const auto engine = exsim::test::quiet_engine();
    exsim::ClusterSpec cluster{};
    cluster.daemons_per_host = 1;
    cluster.executors = 2;
    cluster.cores_per_executor = cores;
    const exsim::Platform p = exsim::build_platform(cluster);
    exsim::Scheduler sched;
    exsim::SimClock clock(sched);
    exsim::HostCpu cpu(sched, cores, 1, 0);
    std::vector<double> simgrid_end(pieces.size()), hostcpu_end(pieces.size());
    for (size_t i = 0; i < pieces.size(); ++i) {
      const Piece piece = pieces[i];
      sg4::Actor::create("exec", p.hosts[0], [piece, &simgrid_end, i] {
        sg4::this_actor::sleep_until(piece.start_s);
        sg4::this_actor::execute(piece.ns); // 1 flop = 1 ns on exsim's hosts
        simgrid_end[i] = sg4::Engine::get_clock();
      });
    }
    // The same pieces on HostCpu, each started by an event at its start time.
    struct Starter {
      exsim::HostCpu* cpu;
      const std::vector<Piece>* pieces;
      std::vector<double>* end;
      exsim::Scheduler* sched;
      void start(uint64_t i) {
        cpu->start((*pieces)[i].ns, exsim::Callback::of<&Starter::finish>(this, i));
      }
      void finish(uint64_t i) { (*end)[i] = sched->now(); }
    } starter{&cpu, &pieces, &hostcpu_end, &sched};
    for (size_t i = 0; i < pieces.size(); ++i)
      sched.at(pieces[i].start_s, exsim::Callback::of<&Starter::start>(&starter, i));
    engine->run();
    return json{{"simgrid", simgrid_end}, {"hostcpu", hostcpu_end}};
  });
}

} // namespace

TEST_CASE("host CPU: pieces share the cores the way SimGrid executions do", "[sim][cpu]") {
  // 60 pieces of 5-400 us arriving within 2 ms on 3 cores: at times up to ~15 run at once.
  exsim::Rng rng(7);
  std::vector<Piece> pieces;
  for (int i = 0; i < 60; ++i)
    pieces.push_back({std::floor(rng.uniform() * 2e6) * 1e-9, std::floor(5e3 + rng.uniform() * 395e3)});
  const json t = finish_times(pieces, 3);
  double worst = 0;
  for (size_t i = 0; i < pieces.size(); ++i)
    worst = std::max(worst, std::abs(t["simgrid"][i].get<double>() - t["hostcpu"][i].get<double>()));
  std::printf("%-58s worst |difference| %.3g s\n", "60 pieces on 3 cores, SimGrid vs HostCpu", worst);
  CHECK(worst < 1e-8);
}

TEST_CASE("host CPU: a piece runs on one core, and more pieces than cores share them equally", "[sim][cpu]") {
  // Two cores. A (100 us) and B (300 us) start at 0, C (100 us) at 50 us. Until 50 us A and B
  // each have a core. Then three share two cores at 2/3 of a core each: A's last 50 us take
  // 75 us, so A ends at 125 us, when C has done 50 us and B 100 us. Two pieces, a core each:
  // C ends at 175 us and B at 325 us.
  const json t = finish_times({{0, 100e3}, {0, 300e3}, {50e-6, 100e3}}, 2);
  const double expected[] = {125e-6, 325e-6, 175e-6};
  for (size_t i = 0; i < 3; ++i) {
    exsim::test::show(fmt::format("piece {} end (s)", i), expected[i], t["hostcpu"][i].get<double>());
    CHECK(t["hostcpu"][i].get<double>() == Approx(expected[i]).epsilon(1e-9));
    CHECK(t["simgrid"][i].get<double>() == Approx(expected[i]).epsilon(1e-9));
  }
}
