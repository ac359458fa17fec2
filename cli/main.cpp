// exsim command line: run, validate, schema, params. Exit status 0 success, 2 bad input,
// 1 internal error.
#include "input/parameters.hpp"
#include "input/scenario.hpp"
#include "output/remote_scan_summary.hpp"
#include "output/summary.hpp"
#include "sim/simulation.hpp"

#include <fmt/format.h>

#include <sys/resource.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <fstream>
#include <iostream>

namespace {

constexpr int kExitOk = 0;
constexpr int kExitInternal = 1;
constexpr int kExitBadInput = 2;

const char* const kUsage = R"(exsim - discrete-event simulator of Apache Impala's exchange senders (SimGrid)

Usage:
  exsim run [SCENARIO] [--set NAME=VALUE]... [--output FILE] [--summary] [--timing]
            [--progress | --no-progress] [--jobs N]
  exsim validate SCENARIO [--set NAME=VALUE]...
  exsim schema            print the scenario JSON Schema (generated from the parameter table)
  exsim params            print every scenario parameter with its unit, default and check
  exsim --help | --version

Commands:
  run        Simulate SCENARIO and write the results JSON to FILE (atomically), or to
             stdout without --output. Without SCENARIO, runs the built-in default
             scenario (scenarios/default.json).
  validate   Check SCENARIO (structure, then meaning) without simulating.

Options:
  --set NAME=VALUE  Override a value before validation. NAME is a flag name, applied to
                    every exchange that does not override it (rpcs_in_flight_per_channel,
                    data_stream_sender_buffer_size, exchg_node_buffer_size_bytes, batch_size,
                    mt_dop, compression, eos_flush; for a remote scan the prefetch keys,
                    executorSplitPrefetchConcurrency, prefetchMaxInFlightBytes, ...),
                    or any JSON path in the scenario
                    (cluster.rtt_us, exchanges[0].rows_total). VALUE is JSON, or a bare
                    string. May be repeated.
  --output FILE     Write results JSON to FILE (temporary file, then rename).
  --summary         Print a readable summary table to stdout (results go to --output).
  --timing          Print wall-clock time, simulated RPCs per wall second and peak memory
                    to stderr as one JSON line (never part of the results).
  --progress        Print simulated time and finished exchanges to stderr about once a
                    second (default when stderr is a terminal; --no-progress turns it off).
  --jobs N          With query_order "sequential", simulate N queries at once in child
                    processes (0 = one per core); the results do not depend on N.

Exit status: 0 success, 2 bad input (the message names the file and JSON path),
1 internal error.
)";

struct Args {
  std::string command;
  std::string scenario;
  std::vector<exsim::Override> overrides;
  std::string output;
  bool summary = false;
  bool timing = false;
  int progress = -1; // -1: when stderr is a terminal
  int jobs = 1;
};

Args parse_args(int argc, char** argv) {
  Args a;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    auto value = [&](const std::string& flag) -> std::string {
      if (i + 1 >= argc) throw exsim::InputError(fmt::format("{}: expected a value after it", flag));
      return argv[++i];
    };
    if (arg == "--set")
      a.overrides.push_back(exsim::parse_override(value(arg)));
    else if (arg.rfind("--set=", 0) == 0)
      a.overrides.push_back(exsim::parse_override(arg.substr(6)));
    else if (arg == "--output" || arg == "-o")
      a.output = value(arg);
    else if (arg.rfind("--output=", 0) == 0)
      a.output = arg.substr(9);
    else if (arg == "--summary")
      a.summary = true;
    else if (arg == "--timing")
      a.timing = true;
    else if (arg == "--jobs" || arg == "-j") {
      const std::string v = value(arg);
      if (v.empty() || v.find_first_not_of("0123456789") != std::string::npos || v.size() > 4)
        throw exsim::InputError(
            fmt::format("--jobs {}: expected a number of processes (0 = one per core)", v));
      a.jobs = std::stoi(v);
      if (a.jobs == 0) a.jobs = static_cast<int>(sysconf(_SC_NPROCESSORS_ONLN));
    } else if (arg == "--progress")
      a.progress = 1;
    else if (arg == "--no-progress")
      a.progress = 0;
    else if (arg == "--help" || arg == "-h" || arg == "--version")
      a.command = arg;
    else if (!arg.empty() && arg[0] == '-')
      throw exsim::InputError(fmt::format("{}: unknown option (see exsim --help)", arg));
    else if (a.command.empty())
      a.command = arg;
    else if (a.scenario.empty())
      a.scenario = arg;
    else
      throw exsim::InputError(fmt::format("{}: unexpected extra argument (see exsim --help)", arg));
  }
  return a;
}

void write_atomically(const std::string& path, const std::string& text) {
  if (path.rfind("/dev/", 0) == 0) { // a device (/dev/stdout): no temporary file beside it
    std::ofstream out(path, std::ios::binary);
    out << text;
    return;
  }
  const std::string tmp = fmt::format("{}.tmp.{}", path, static_cast<long>(getpid()));
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    if (!out) throw exsim::InputError(fmt::format("{}: cannot write the results file", path));
    out << text;
    out.flush();
    if (!out) throw exsim::InputError(fmt::format("{}: writing the results failed", path));
  }
  if (std::rename(tmp.c_str(), path.c_str()) != 0) {
    std::remove(tmp.c_str());
    throw exsim::InputError(fmt::format("{}: cannot move the results into place", path));
  }
}

int run(const Args& a) {
  const std::string path = a.scenario.empty() ? std::string(EXSIM_DEFAULT_SCENARIO) : a.scenario;
  const exsim::Scenario sc = exsim::load_scenario(path, a.overrides);
  const auto t0 = std::chrono::steady_clock::now();
  const bool progress = a.progress == 1 || (a.progress == -1 && isatty(STDERR_FILENO));
  const nlohmann::json results = exsim::simulate(sc, progress, a.jobs);
  const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  const std::string text = results.dump(2) + "\n";
  if (!a.output.empty()) write_atomically(a.output, text);
  if (a.summary && sc.remote_scan)
    exsim::print_remote_scan_summary(results);
  else if (a.summary)
    exsim::print_summary(results);
  else if (a.output.empty())
    std::cout << text;
  if (a.timing) {
    rusage ru{};
    getrusage(RUSAGE_SELF, &ru);
    const auto& s = results.at("summary");
    // Requests simulated: RPCs of the exchanges, or GETs of a remote scan.
    const char* what = sc.remote_scan ? "gets" : "rpcs";
    const double rpcs = sc.remote_scan
                            ? static_cast<double>(s.at("footer_gets").get<int64_t>() + s.at("data_gets").get<int64_t>())
                            : static_cast<double>(s.at("rpcs").get<int64_t>() + s.at("eos_rpcs").get<int64_t>());
    std::cerr << nlohmann::json{{"wall_s", wall},
                                {what, rpcs},
                                {std::string(what) + "_per_wall_s", wall > 0 ? rpcs / wall : 0.0},
                                {"peak_rss_kib", static_cast<int64_t>(ru.ru_maxrss)}}
                     .dump()
              << "\n";
  }
  return kExitOk;
}

} // namespace

int main(int argc, char** argv) {
  try {
    const Args a = parse_args(argc, argv);
    if (a.command.empty() || a.command == "--help" || a.command == "-h" || a.command == "help") {
      std::cout << kUsage;
      return a.command.empty() ? kExitBadInput : kExitOk;
    }
    if (a.command == "--version") {
      std::cout << "exsim " << EXSIM_VERSION << "\n";
      return kExitOk;
    }
    if (a.command == "run") return run(a);
    if (a.command == "validate") {
      if (a.scenario.empty())
        throw exsim::InputError("validate: expected a SCENARIO file (see exsim --help)");
      const exsim::Scenario sc = exsim::load_scenario(a.scenario, a.overrides);
      std::cout << (sc.remote_scan
                        ? fmt::format("{}: valid (remote_scan)\n", a.scenario)
                        : fmt::format("{}: valid ({} exchange(s))\n", a.scenario, sc.exchanges.size()));
      return kExitOk;
    }
    if (a.command == "schema") {
      std::cout << exsim::scenario_schema().dump(2) << "\n";
      return kExitOk;
    }
    if (a.command == "params") {
      std::cout << "Scenario parameters (unit, default, check, meaning):\n" << exsim::parameters_help();
      return kExitOk;
    }
    throw exsim::InputError(fmt::format("{}: unknown command (see exsim --help)", a.command));
  } catch (const exsim::InputError& e) {
    std::cerr << "exsim: " << e.what() << "\n";
    return kExitBadInput;
  } catch (const std::exception& e) {
    std::cerr << "exsim: internal error: " << e.what() << "\n";
    return kExitInternal;
  }
}
