#include "sim/simulation.hpp"

#include "output/results.hpp"

#include <simgrid/s4u.hpp>
#include <xbt/log.h>

#include <fmt/format.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <sstream>
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
  platform = build_platform(scenario.cluster);
  network_ = make_network(scenario.cluster.network_model, platform);
  for (size_t i = 0; i < platform.hosts.size(); ++i)
    cpus_.push_back(std::make_unique<HostCpu>(scenario.cluster.cores_per_executor));
  for (size_t i = 0; i < scenario.exchanges.size(); ++i)
    exchanges.push_back(std::make_unique<ExchangeRun>(*this, static_cast<int>(i), scenario.exchanges[i]));
  for (const auto& spec : scenario.exchanges)
    for (int dep : spec.after)
      exchanges.at(static_cast<size_t>(dep))->dependents++;
}

Simulation::~Simulation() = default;

HostCpu& Simulation::cpu(int host) { return *cpus_.at(static_cast<size_t>(host)); }

Connection& Simulation::connection(int from, int to) {
  const size_t hosts = platform.hosts.size();
  if (connections_.empty()) connections_.resize(hosts * hosts);
  auto& c = connections_.at(static_cast<size_t>(from) * hosts + static_cast<size_t>(to));
  if (!c) c = std::make_unique<Connection>(*network_, from, to);
  return *c;
}

void Simulation::run(bool progress) {
  bool deadlock = false;
  sg4::Engine::on_deadlock_cb([&deadlock] { deadlock = true; });
  if (progress) {
    // Wall-clock reading only decides when to print; it never reaches the results.
    auto last = std::chrono::steady_clock::now();
    sg4::Engine::on_time_advance_cb([this, last, calls = 0](double) mutable {
      if (++calls % 4096 != 0) return;
      const auto now = std::chrono::steady_clock::now();
      if (now - last < std::chrono::seconds(1)) return;
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

namespace {

struct QueryGroup {
  std::string name;
  std::vector<int> members; // exchange indices, in scenario order
};

std::vector<QueryGroup> group_by_query(const Scenario& sc) {
  std::vector<QueryGroup> groups;
  for (const ExchangeSpec& e : sc.exchanges) {
    auto it =
        std::find_if(groups.begin(), groups.end(), [&](const QueryGroup& g) { return g.name == e.query; });
    if (it == groups.end()) {
      groups.push_back({e.query, {}});
      it = groups.end() - 1;
    }
    it->members.push_back(e.index);
  }
  return groups;
}

// The query's exchanges alone; `after` references are renumbered, random streams keep their
// scenario-wide index (ExchangeSpec::index), so a query simulates the same wherever it runs.
nlohmann::json simulate_query(const Scenario& sc, const QueryGroup& g) {
  Scenario sub = sc;
  sub.exchanges.clear();
  std::map<int, int> position;
  for (int i : g.members) {
    position[i] = static_cast<int>(sub.exchanges.size());
    sub.exchanges.push_back(sc.exchanges.at(static_cast<size_t>(i)));
  }
  for (ExchangeSpec& e : sub.exchanges)
    for (int& a : e.after)
      a = position.at(a);
  Simulation sim(sub);
  sim.run(false);
  nlohmann::json parts = nlohmann::json::array();
  for (const auto& x : sim.exchanges)
    parts.push_back(exchange_result(*x, sub));
  return parts;
}

void shift_times(nlohmann::json& x, double offset) {
  x["start_s"] = x.at("start_s").get<double>() + offset;
  x["end_s"] = x.at("end_s").get<double>() + offset;
  for (const char* side : {"sender_instances", "receiver_instances"})
    for (auto& inst : x[side])
      inst["end_s"] = inst.at("end_s").get<double>() + offset;
}

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream buf;
  buf << in.rdbuf();
  return buf.str();
}

// Queries are started largest first (bytes the exchanges carry, a proxy for simulation work), so
// that the longest one does not start last and leave the other processes idle. Only the wall
// time depends on this order: each query is simulated alone, and the merge goes in query order.
std::vector<size_t> launch_order(const Scenario& sc, const std::vector<QueryGroup>& groups) {
  std::vector<double> bytes(groups.size(), 0);
  for (size_t q = 0; q < groups.size(); ++q)
    for (int i : groups[q].members) {
      const ExchangeSpec& e = sc.exchanges.at(static_cast<size_t>(i));
      bytes[q] += static_cast<double>(e.rows_total) * static_cast<double>(e.shape.row_bytes());
    }
  std::vector<size_t> order(groups.size());
  for (size_t q = 0; q < order.size(); ++q)
    order[q] = q;
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return bytes[a] > bytes[b]; });
  return order;
}

nlohmann::json simulate_in_sequence(const Scenario& sc, bool progress, int jobs) {
  const std::vector<QueryGroup> groups = group_by_query(sc);
  const std::vector<size_t> order = launch_order(sc, groups);
  char dir_template[] = "/tmp/exsim-queries.XXXXXX";
  const char* dir = mkdtemp(dir_template);
  if (!dir) throw std::runtime_error("cannot create a temporary directory for the query processes");
  auto part_path = [&](size_t q) { return fmt::format("{}/query-{}.json", dir, q); };
  std::vector<nlohmann::json> parts(groups.size());
  std::map<pid_t, size_t> running;
  size_t next = 0, done = 0;
  std::string failure;
  while ((next < groups.size() && failure.empty()) || !running.empty()) {
    while (failure.empty() && next < groups.size() && static_cast<int>(running.size()) < std::max(1, jobs)) {
      std::fflush(nullptr);
      const size_t q = order[next++];
      const pid_t pid = fork();
      if (pid < 0) throw std::runtime_error("fork failed while starting a query process");
      if (pid == 0) {
        int code = 0;
        std::string text;
        try {
          text = simulate_query(sc, groups[q]).dump();
        } catch (const std::exception& e) {
          text = e.what();
          code = 3;
        }
        std::ofstream(part_path(q), std::ios::binary) << text;
        std::fflush(nullptr);
        _exit(code);
      }
      running[pid] = q;
    }
    int status = 0;
    const pid_t pid = waitpid(-1, &status, 0);
    if (pid < 0) throw std::runtime_error("lost track of the query processes");
    const size_t q = running.at(pid);
    running.erase(pid);
    const std::string text = read_file(part_path(q));
    std::remove(part_path(q).c_str());
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
      if (failure.empty())
        failure = fmt::format("query \"{}\": {}", groups[q].name, text.empty() ? "its process died" : text);
      continue;
    }
    parts[q] = nlohmann::json::parse(text);
    if (progress) std::fprintf(stderr, "\rexsim: %zu/%zu queries simulated ", ++done, groups.size());
  }
  rmdir(dir);
  if (progress) std::fprintf(stderr, "\n");
  if (!failure.empty()) throw std::runtime_error(failure);
  // Each query starts when the previous one ended; its exchanges start query_extra_s later.
  nlohmann::json exchanges = nlohmann::json::array();
  std::vector<nlohmann::json> by_index(sc.exchanges.size());
  double offset = 0;
  for (size_t q = 0; q < groups.size(); ++q) {
    double end = 0;
    const double extra = sc.query_extra_s(groups[q].name);
    for (size_t k = 0; k < groups[q].members.size(); ++k) {
      nlohmann::json& x = parts[q].at(k);
      end = std::max(end, x.at("end_s").get<double>());
      shift_times(x, offset + extra);
      by_index[static_cast<size_t>(groups[q].members[k])] = std::move(x);
    }
    offset += extra + end;
  }
  for (auto& x : by_index)
    exchanges.push_back(std::move(x));
  return assemble_results(sc, std::move(exchanges));
}

} // namespace

nlohmann::json simulate(const Scenario& scenario, bool progress, int jobs) {
  if (scenario.query_order == QueryOrder::sequential) return simulate_in_sequence(scenario, progress, jobs);
  Simulation sim(scenario);
  sim.run(progress);
  return make_results(sim);
}

} // namespace exsim
