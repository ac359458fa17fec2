#include "sim/simulation.hpp"

#include "models/query/workload.hpp"
#include "models/run_fields.hpp"
#include "sim/clock.hpp"
#include "sim/connection.hpp"
#include "sim/platform.hpp"

#include <simgrid/s4u.hpp>
#include <xbt/log.h>

#include <fmt/format.h>
#include <nlohmann/json.hpp>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <fstream>
#include <map>
#include <sstream>
#include <stdexcept>
#include <type_traits>

namespace exsim {

// A query process hands its run to the parent as JSON of these structs (numbers round-trip exactly):
// every member a row of the results field table reads (models/run_fields.hpp), under its own name; a
// test ties every member of each struct to a row, so none is dropped on the way.
template <class T>
concept CarriedRun = std::is_same_v<T, SenderCounters> || std::is_same_v<T, ReceiverCounters> ||
    std::is_same_v<T, FragmentStats> || std::is_same_v<T, ExchangeRun> || std::is_same_v<T, QueryRun>;

void to_json(nlohmann::json& j, const Path& p) {
  j = nlohmann::json::array();
  for (size_t i = 0; i < kPathParts; ++i)
    j.push_back(p.get(static_cast<PathPart>(i)));
}
void from_json(const nlohmann::json& j, Path& p) {
  p = Path{};
  for (size_t i = 0; i < kPathParts; ++i)
    p.add(static_cast<PathPart>(i), j.at(i).get<double>());
}
template <CarriedRun T> void to_json(nlohmann::json& j, const T& t) {
  static const std::vector<MemberRead<T>> members = members_read<T>();
  j = nlohmann::json::object();
  for (const MemberRead<T>& m : members)
    std::visit([&](auto ptr) { j[m.member] = t.*ptr; }, m.ptr);
}
template <CarriedRun T> void from_json(const nlohmann::json& j, T& t) {
  static const std::vector<MemberRead<T>> members = members_read<T>();
  for (const MemberRead<T>& m : members)
    std::visit([&](auto ptr) { j.at(m.member).get_to(t.*ptr); }, m.ptr);
}

nlohmann::json query_run_json(const QueryRun& q) {
  return q;
}
QueryRun query_run_of(const nlohmann::json& j) {
  return j.get<QueryRun>();
}

namespace {

// Simulates the given queries of the scenario together in this process; returns their runs, in
// the order of `which`, and the events the Scheduler ran.
WorkloadRun run_queries(const Scenario& sc, const std::vector<size_t>& which, bool progress) {
  auto engine = make_engine();
  const Platform platform = build_platform(sc.cluster);
  Scheduler sched;
  SimClock clock(sched);
  const NetworkModel model = resolve_network_model(sc.cluster.network_model, sc.cluster.executors);
  ConnectionNetwork network(platform, model, clock, sched);
  std::vector<QuerySpec> specs;
  for (size_t q : which)
    specs.push_back(sc.queries.at(q));
  Workload workload(sched, network, sc.cluster, sc.flags, sc.costs, specs, sc.seed);

  // With exsim's network the engine has nothing else to simulate: the clock runs ahead on its own.
  if (network_model_kind(model).solver == NetworkModelKind::Solver::share)
    clock.run_ahead(network.transfers());

  bool deadlock = false;
  sg4::Engine::on_deadlock_cb([&deadlock] { deadlock = true; });
  if (progress) {
    // Wall-clock reading only decides when to print; it never reaches the results.
    auto report = [&, last = std::chrono::steady_clock::now(), calls = 0](double) mutable {
      if (++calls % 4096 != 0) return;
      const auto now = std::chrono::steady_clock::now();
      if (now - last < std::chrono::seconds(1)) return;
      last = now;
      size_t done = 0;
      for (const auto& q : workload.queries)
        done += q->finished() ? 1 : 0;
      std::fprintf(stderr, "\rexsim: simulated %.3f s, %zu/%zu queries done ", clock.now(), done,
                   workload.queries.size());
      std::fflush(stderr);
    };
    clock.on_advance = report;
    sg4::Engine::on_time_advance_cb(report);
  }
  // The driver: starts the workload and stays alive until it has finished (the models and the
  // connections run as engine events, not actors, and SimGrid stops when no actor is left).
  auto done = sg4::Semaphore::create(0);
  sg4::Actor::create("driver", platform.hosts.at(0), [&] {
    clock.post_now({[](void* w, uint64_t d) {
                             auto* wl = static_cast<Workload*>(w);
                             wl->start({[](void* s, uint64_t) { static_cast<sg4::Semaphore*>(s)->release(); },
                                        reinterpret_cast<sg4::Semaphore*>(d), 0});
                           },
                           &workload, reinterpret_cast<uint64_t>(done.get())});
    done->acquire();
  });
  engine->run();
  if (progress) std::fprintf(stderr, "\rexsim: simulated %.3f s%30s\n", clock.now(), "");
  workload.rethrow_failure();
  if (deadlock || !workload.finished())
    throw std::logic_error("the simulation deadlocked (a query never finished); this is a bug in exsim");

  WorkloadRun run;
  for (const auto& q : workload.queries)
    run.queries.push_back(query_run(*q));
  run.events = sched.scheduled();
  return run;
}

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream buf;
  buf << in.rdbuf();
  return buf.str();
}

// Queries are started largest first (the batches their exchanges and scans move, a proxy for the
// events to simulate), so that the longest one does not start last and leave the other processes
// idle. Only the wall time depends on this order: each query is simulated alone, and the merge goes
// in query order.
std::vector<size_t> launch_order(const Scenario& sc) {
  std::vector<double> work(sc.queries.size(), 0);
  for (size_t q = 0; q < sc.queries.size(); ++q) {
    const QuerySpec& query = sc.queries[q];
    for (const ExchangeSpec& e : query.exchanges) {
      double rows = static_cast<double>(e.rows_total);
      if (e.sender_fragment >= 0 && !query.exchange_only) {
        const FragmentSpec& f = query.fragments.at(static_cast<size_t>(e.sender_fragment));
        rows = f.ops.at(static_cast<size_t>(f.root)).rows;
      }
      const double per_batch = static_cast<double>(std::min(e.sender.collector_rows, e.flags.batch_size));
      work[q] += rows / per_batch * (traits(e.partitioning).every_receiver ? e.receivers() : 1);
    }
    for (const FragmentSpec& f : query.fragments)
      for (const OpSpec& o : f.ops)
        if (o.kind == OpKind::scan)
          work[q] += o.rows / static_cast<double>((query.flags ? *query.flags : sc.flags).batch_size);
  }
  std::vector<size_t> order(sc.queries.size());
  for (size_t q = 0; q < order.size(); ++q)
    order[q] = q;
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return work[a] > work[b]; });
  return order;
}

// The parts of the queries `order` (each simulated alone in a child process, `jobs` at a time), by
// query index; the queries not in `order` keep an empty part.
std::vector<std::string> simulate_parts(const Scenario& sc, const std::vector<size_t>& order, bool progress,
                                        int jobs) {
  // A query starts while the queries running and it fit in memory together (the first always does).
  const MemoryLimit limit = memory_limit();
  const double budget = limit.bytes;
  auto need = [&](size_t q) {
    return static_cast<double>(channels_of(sc.queries[q])) * static_cast<double>(kBytesPerChannel);
  };
  double used = 0;
  char dir_template[] = "/tmp/exsim-queries.XXXXXX";
  const char* dir = mkdtemp(dir_template);
  if (!dir) throw std::runtime_error("cannot create a temporary directory for the query processes");
  auto part_path = [&](size_t q) { return fmt::format("{}/query-{}.json", dir, q); };
  std::vector<std::string> parts(sc.queries.size());
  std::map<pid_t, size_t> running;
  const pid_t parent = getpid();
  size_t next = 0, done = 0;
  std::string failure;
  bool held_back = false; // said once
  while ((next < order.size() && failure.empty()) || !running.empty()) {
    while (failure.empty() && next < order.size() && static_cast<int>(running.size()) < std::max(1, jobs)) {
      if (!running.empty() && budget > 0 && used + need(order[next]) > budget) {
        if (!held_back)
          std::fprintf(stderr,
                       "exsim: query \"%s\" waits for memory: with the %zu running it would need %.1f GiB, more "
                       "than %s (%.1f GiB): fewer than --jobs %d run at once while that holds\n",
                       sc.queries[order[next]].name.c_str(), running.size(), (used + need(order[next])) / (1 << 30),
                       limit.what, budget / (1 << 30), jobs);
        held_back = true;
        break;
      }
      std::fflush(nullptr);
      const size_t q = order[next++];
      const pid_t pid = fork();
      if (pid < 0) throw std::runtime_error("fork failed while starting a query process");
      if (pid == 0) {
        // A query's process dies with exsim (killed, or ended by a signal): the kernel sends it
        // SIGKILL when its parent goes; a parent gone before that was set is seen at once.
        if (prctl(PR_SET_PDEATHSIG, SIGKILL) != 0 || getppid() != parent) _exit(4);
        int code = 0;
        std::string text;
        try {
          text = query_part(sc, q);
        } catch (const std::exception& e) {
          text = e.what();
          code = 3;
        }
        std::ofstream(part_path(q), std::ios::binary) << text;
        std::fflush(nullptr);
        _exit(code);
      }
      running[pid] = q;
      used += need(q);
    }
    int status = 0;
    const pid_t pid = waitpid(-1, &status, 0);
    if (pid < 0) throw std::runtime_error("lost track of the query processes");
    const size_t q = running.at(pid);
    running.erase(pid);
    used -= need(q);
    const std::string text = read_file(part_path(q));
    std::remove(part_path(q).c_str());
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
      if (failure.empty())
        failure = fmt::format("query \"{}\": {}", sc.queries[q].name, text.empty() ? "its process died" : text);
      continue;
    }
    parts[q] = text;
    if (progress) std::fprintf(stderr, "\rexsim: %zu/%zu queries simulated ", ++done, order.size());
  }
  rmdir(dir);
  if (progress) std::fprintf(stderr, "\n");
  if (!failure.empty()) throw std::runtime_error(failure);
  return parts;
}

WorkloadRun simulate_in_sequence(const Scenario& sc, bool progress, int jobs) {
  return merge_parts(sc, simulate_parts(sc, launch_order(sc), progress, jobs));
}

} // namespace

std::string query_part(const Scenario& sc, size_t q) {
  if (q >= sc.queries.size())
    throw std::invalid_argument(fmt::format("query {}: the scenario has {} queries", q, sc.queries.size()));
  const WorkloadRun one = run_queries(sc, {q}, false);
  return nlohmann::json{{"query", sc.queries[q].name}, {"run", one.queries.at(0)}, {"events", one.events}}.dump();
}

std::vector<size_t> share_queries(const Scenario& sc, size_t share, size_t shares) {
  if (shares == 0 || share >= shares)
    throw std::invalid_argument(fmt::format("share {} of {}: expected a share from 0 to {}", share, shares,
                                            shares == 0 ? 0 : shares - 1));
  const std::vector<size_t> order = launch_order(sc);
  std::vector<size_t> mine;
  for (size_t i = share; i < order.size(); i += shares)
    mine.push_back(order[i]);
  return mine;
}

std::string query_share(const Scenario& sc, size_t share, size_t shares) {
  const std::vector<size_t> mine = share_queries(sc, share, shares);
  const std::vector<std::string> parts = simulate_parts(sc, mine, false, 1);
  nlohmann::json out = nlohmann::json::array();
  for (size_t q : mine)
    out.push_back({{"index", q}, {"part", nlohmann::json::parse(parts[q])}});
  return out.dump();
}

WorkloadRun merge_parts(const Scenario& sc, const std::vector<std::string>& parts) {
  if (parts.size() != sc.queries.size())
    throw std::invalid_argument(fmt::format("{} query parts for {} queries", parts.size(), sc.queries.size()));
  WorkloadRun run;
  run.queries.resize(sc.queries.size());
  for (size_t q = 0; q < parts.size(); ++q) {
    const nlohmann::json part = nlohmann::json::parse(parts[q]);
    if (part.at("query").get<std::string>() != sc.queries[q].name)
      throw std::invalid_argument(fmt::format("query part {} is of query \"{}\", expected \"{}\"", q,
                                              part.at("query").get<std::string>(), sc.queries[q].name));
    part.at("run").get_to(run.queries[q]);
    run.events += part.at("events").get<uint64_t>();
  }
  // Each query starts when the previous one ended.
  double offset = 0;
  for (size_t q = 0; q < sc.queries.size(); ++q) {
    QueryRun& query = run.queries[q];
    double end = 0;
    for (const ExchangeRun& x : query.exchanges)
      end = std::max(end, x.end_s);
    if (!sc.queries[q].exchange_only) end = std::max(end, query.end_s);
    query.clock_offset_s = offset;
    offset += end;
  }
  return run;
}

MemoryLimit memory_limit() {
  MemoryLimit m{static_cast<double>(sysconf(_SC_PHYS_PAGES)) * static_cast<double>(sysconf(_SC_PAGE_SIZE)),
                "the machine's memory"};
  rlimit rl{};
  if (getrlimit(RLIMIT_AS, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY && static_cast<double>(rl.rlim_cur) < m.bytes)
    m = {static_cast<double>(rl.rlim_cur), "this process's address-space limit (ulimit -v)"};
  return m;
}

WorkloadRun simulate(const Scenario& scenario, bool progress, int jobs) {
  if (scenario.remote_scan) throw std::logic_error("simulate: a remote scan runs with run_remote_scan");
  if (scenario.query_order == QueryOrder::sequential) return simulate_in_sequence(scenario, progress, jobs);
  std::vector<size_t> all(scenario.queries.size());
  for (size_t q = 0; q < all.size(); ++q)
    all[q] = q;
  return run_queries(scenario, all, progress);
}

} // namespace exsim
