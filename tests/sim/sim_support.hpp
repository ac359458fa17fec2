// Helpers for in-simulation tests: build a scenario from JSON, simulate it in a child process,
// and print the analytic expectation next to the simulated value.
#pragma once

#include "input/scenario.hpp"
#include "output/remote_scan_results.hpp"
#include "output/results.hpp"
#include "sim/platform.hpp"
#include "sim/remote_scan.hpp"
#include "sim/simulation.hpp"

#include <catch2/catch.hpp>
#include <simgrid/s4u/Engine.hpp>
#include <xbt/log.h>
#include <nlohmann/json.hpp>

#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <memory>
#include <string>

namespace exsim::test {

using nlohmann::json;

// A cluster where only round trips and bandwidth cost time: CPU costs are zero.
inline json free_cpu_exchange(json x) {
  for (const char* k : {"producer_ns_per_row", "hash_ns_per_row", "copy_ns_per_row", "compress_ns_per_byte",
                        "serialize_ns_per_byte", "deserialize_ns_per_byte", "consumer_ns_per_row"})
    if (!x.contains(k)) x[k] = 0;
  return x;
}

inline json scenario(json cluster, json flags, json exchanges) {
  return {{"schema_version", 1}, {"cluster", cluster}, {"flags", flags}, {"exchanges", exchanges}};
}

// A SimGrid engine for a test's child process, configured as exsim configures its own, with
// SimGrid's log quiet below critical; for tests that wire models onto SimGrid themselves.
inline std::unique_ptr<simgrid::s4u::Engine> quiet_engine() {
  static char name[] = "exsim-test";
  static int argc = 1;
  static char* argv[] = {name, nullptr};
  xbt_log_control_set("root.thres:critical");
  auto engine = std::make_unique<simgrid::s4u::Engine>(&argc, argv);
  configure_engine(*engine);
  return engine;
}

// SimGrid allows one engine per process and its clock never resets, so every simulation runs
// in a forked child that sends its JSON answer back through a pipe.
template <class F> json in_child(F body) {
  int fds[2];
  REQUIRE(pipe(fds) == 0);
  std::fflush(nullptr); // or the child prints the parent's buffered output again
  const pid_t pid = fork();
  REQUIRE(pid >= 0);
  if (pid == 0) {
    close(fds[0]);
    std::string out;
    int code = 0;
    try {
      out = body().dump();
    } catch (const std::exception& e) {
      out = json{{"child_error", e.what()}}.dump();
      code = 3;
    }
    size_t off = 0;
    while (off < out.size()) {
      const ssize_t w = write(fds[1], out.data() + off, out.size() - off);
      if (w <= 0) break;
      off += static_cast<size_t>(w);
    }
    close(fds[1]);
    _exit(code);
  }
  close(fds[1]);
  std::string text;
  char buf[65536];
  ssize_t n;
  while ((n = read(fds[0], buf, sizeof buf)) > 0)
    text.append(buf, static_cast<size_t>(n));
  close(fds[0]);
  int status = 0;
  waitpid(pid, &status, 0);
  INFO("simulation child output: " << text.substr(0, 400));
  REQUIRE(WIFEXITED(status));
  REQUIRE(WEXITSTATUS(status) == 0);
  return json::parse(text);
}

inline json simulate_doc(const json& doc, int jobs = 1) {
  return in_child([&] {
    const Scenario sc = build_scenario(doc, "test-scenario.json");
    return sc.remote_scan ? remote_scan_results(sc, run_remote_scan(sc)) : results_document(sc, simulate(sc, false, jobs));
  });
}

inline void show(const std::string& what, double expected, double simulated) {
  std::printf("%-58s expected %.6f, simulated %.6f\n", what.c_str(), expected, simulated);
}

} // namespace exsim::test
