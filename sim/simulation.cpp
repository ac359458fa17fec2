#include "sim/simulation.hpp"

#include "sim/results.hpp"

#include <simgrid/s4u.hpp>
#include <xbt/log.h>

#include <chrono>
#include <cstdio>
#include <stdexcept>

namespace exsim {

Simulation::Simulation(const Scenario& s) : scenario(s) {
  // SimGrid allows one engine per process; its own logging is kept to real problems.
  static char name[] = "exsim";
#if defined(__SANITIZE_ADDRESS__)
  // Debian's SimGrid does not tell ASan about its context switches, so under ASan every stack
  // switch looks like an overflow. Thread contexts are slower but switch stacks the ordinary way.
  // The factory is chosen when the engine is built, hence a command-line setting.
  static char contexts[] = "--cfg=contexts/factory:thread";
  static int argc = 2;
  static char* argv[] = {name, contexts, nullptr};
#else
  static int argc = 1;
  static char* argv[] = {name, nullptr};
#endif
  xbt_log_control_set("root.thres:critical");
  engine_ = std::make_unique<sg4::Engine>(&argc, argv);
  configure_engine(*engine_);
  platform = build_platform(*engine_, scenario.cluster);
  for (size_t i = 0; i < scenario.exchanges.size(); ++i)
    exchanges.push_back(std::make_unique<ExchangeRun>(*this, static_cast<int>(i), scenario.exchanges[i]));
  for (const auto& spec : scenario.exchanges)
    for (int dep : spec.after)
      exchanges.at(static_cast<size_t>(dep))->dependents++;
}

Simulation::~Simulation() = default;

void Simulation::run(bool progress) {
  bool deadlock = false;
  sg4::Engine::on_deadlock_cb([&deadlock] { deadlock = true; });
  if (progress) {
    // Wall-clock reading only decides when to print; it never reaches the results.
    auto last = std::chrono::steady_clock::now();
    sg4::Engine::on_time_advance_cb([this, last, calls = 0](double) mutable {
      if (++calls % 4096 != 0)
        return;
      const auto now = std::chrono::steady_clock::now();
      if (now - last < std::chrono::seconds(1))
        return;
      last = now;
      std::fprintf(stderr, "\rexsim: simulated %.3f s, %d/%zu exchanges done ", sg4::Engine::get_clock(),
                   exchanges_finished, exchanges.size());
      std::fflush(stderr);
    });
  }
  for (auto& x : exchanges) {
    ExchangeRun* run = x.get();
    sg4::Actor::create("launcher", platform.hosts.at(0), [run] { run->launch(); });
  }
  engine_->run();
  if (progress)
    std::fprintf(stderr, "\rexsim: simulated %.3f s, %d/%zu exchanges done\n", sg4::Engine::get_clock(),
                 exchanges_finished, exchanges.size());
  if (deadlock)
    throw std::logic_error("the simulation deadlocked (an exchange never finished); this is a bug in exsim");
}

void Simulation::abort_query(ExchangeRun& origin, ExchangeStatus why, const std::string& reason) {
  if (origin.spec.query.empty()) {
    origin.abort(why, reason);
    return;
  }
  aborted_queries_.emplace(origin.spec.query, std::make_pair(why, reason));
  origin.abort(why, reason);
  // The rest of the query is cancelled, whether it is running or still waiting to start.
  for (auto& x : exchanges)
    if (x.get() != &origin && x->spec.query == origin.spec.query)
      x->abort(ExchangeStatus::cancelled, "query failed or was cancelled: " + reason);
}

bool Simulation::query_aborted(const std::string& query) const {
  return !query.empty() && aborted_queries_.count(query) > 0;
}

nlohmann::json simulate(const Scenario& scenario, bool progress) {
  Simulation sim(scenario);
  sim.run(progress);
  return make_results(sim);
}

} // namespace exsim
