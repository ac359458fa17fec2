// exsim command line: run, validate, explain, migrate, summary, schema, params, fields, rules; profile
// import, compare and diff are the Python package tools/impala_profile, run with the system interpreter.
// Exit status 0 success, 2 bad input, 1 internal error.
#include "cli/scenario_kinds.hpp"
#include "input/json_input.hpp"
#include "input/migrate.hpp"
#include "input/parameter_docs.hpp"
#include "input/parameters.hpp"
#include "input/rules.hpp"
#include "input/scenario.hpp"
#include "input/suggest.hpp"
#include "output/explain.hpp"
#include "output/fields.hpp"
#include "output/results.hpp"
#include "output/summary.hpp"
#include "sim/simulation.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <sys/resource.h>
#include <dirent.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iostream>
#include <sstream>

namespace {

constexpr int kExitOk = 0;
constexpr int kExitInternal = 1;
constexpr int kExitBadInput = 2;

const char* const kUsage = R"(exsim - discrete-event simulator of Apache Impala's exchange senders (SimGrid)

Usage:
  exsim run [SCENARIO] [--set NAME=VALUE]... [--output FILE] [--summary [--format F] [--top N]]
            [--timing] [--progress | --no-progress] [--jobs N | --dask ADDRESS]
  exsim validate SCENARIO [--set NAME=VALUE]...
  exsim migrate SCENARIO [--output FILE]
  exsim explain [SCENARIO] [--set NAME=VALUE]... [--format text|json]
  exsim summary RESULTS [--format F] [--top N]
  exsim schema            print the scenario JSON Schema (generated from the parameter table)
  exsim params [--format json]
                          print every scenario parameter with its unit, default and check (json: for
                          other programs)
  exsim fields [--format json]
                          print every field of the results with its unit, meaning and the counter it
                          reads (json: for other programs)
  exsim rules RULE [FILE]
                          answer one of the simulator's rules for other programs (RULE: {RULES})
  exsim profile import PROFILE... [--output SCENARIO] [--query ID] [--executors N]
                       [--scale-data F [--scale-table TABLE=F]...]
  exsim compare RESULTS PROFILE... [--format text|json|csv] [--query ID] [--full | --changed [TOL] | --top N]
                [--output FILE]
  exsim diff A.json B.json [--format text|json|csv] [--full | --changed [TOL] | --top N] [--output FILE]
  exsim diff A.json B.json --rel-tol X [--ignore DOTTED.PATH]...
  exsim --help | --version

Commands:
  run        Simulate SCENARIO and write the results JSON to FILE (atomically), or to
             stdout without --output. Without SCENARIO, runs the built-in default
             scenario (scenarios/default.json).
  validate   Check SCENARIO (structure, then meaning) without simulating.
  explain    What SCENARIO's queries will run, without simulating: each fragment's
             instances and executors, its threads and their pipelines (source, operators,
             sink, the join builds a pipeline waits for), each exchange's channels and K.
  migrate    Rewrite SCENARIO of schema_version 1 in schema_version 2, meaning the same
             (to FILE, atomically, or to stdout); see scenarios/README.md.
  profile import
             Read a real Impala query profile (the text of impala-shell's PROFILE or the web
             UI, the web UI's JSON, or an impala_profile_log file of base64 Thrift lines; v1
             or aggregated; Impala 2.x to 5.0) and write a schema_version 2
             scenario of the query: its executors, fragments and instances, exchanges,
             rows, row widths, compression ratio, costs and network from the profile's own
             timers, and the measured counters as `expected`; what the model cannot use is
             listed in provenance.ignored. Several files, or a folder (every profile under
             it), give one workload: each query once, run one after another; a failed or
             cancelled query is left out and listed. --query picks one query.
             --executors N re-places fragments pinned to the profiled daemons on N
             executors as Impala's scheduler would (for a smaller cluster); otherwise
             retarget with run --set cluster.rtt_us=390 --set cluster.executors=N.
             --scale-data F: the queries at F times the profiled data (each table's rows
             and scan ranges; --scale-table gives one table its own factor, 1 for one that
             does not grow), scans widened to the executors their ranges reach, and each
             hash join re-decided by Impala's planner rule; provenance.scaled_data says
             which changed. The measured `expected` values are left out.
  compare    A verdict, one line a query (over several, a line for the workload first: the
             summed runtimes and the queries furthest off), then the 8 counters furthest
             off: the profile's, the simulated ones (RESULTS of running the imported
             scenario) and their ratio, ranked by what you decide on (seconds between the
             two first, then RPCs, then bytes). --full: every exchange and sender instance; --changed [TOL] keeps the
             counters off by more than TOL (default 0.05), --top N the N furthest off.
  diff       A verdict, one line a query, then two results side by side: each query's
             runtime, blocked time, RPCs and memory estimate, and the 8 figures that moved
             most by the same ranking (--full: every exchange's; --changed [TOL], --top N
             as for compare). With --rel-tol, a
             verdict on every figure of the two: identical, within X (relative), or
             different (the worst listed; exit 1); --ignore leaves a key out.
  summary    Print the summary of a results file written earlier by `run --output`.
  rules      Answer a rule of the simulator for inputs a program gives, so that the program
             asks instead of computing it again: FILE (or stdin without it, or -) holds a
             JSON array of inputs a line, and each line is answered, as soon as it is read,
             with the JSON array of the answers on one line of stdout; a program may keep one
             exsim open and ask as it goes. Each value is checked as the scenario key it
             stands for. collector-rows: an input is [buffer_bytes, fixed_row_bytes,
             row_bytes] (data_stream_sender_buffer_size, fixed_row_bytes, fixed_row_bytes +
             var_row_bytes), answered with the rows a hash sender's collector holds:
             echo '[[16384, 93, 93]]' | exsim rules collector-rows   prints [176].

Options:
  --set NAME=VALUE  Override a value before validation. NAME is a flag name, applied to
                    every exchange that does not override it ({FLAGS}; for a remote scan
                    the prefetch keys: {PREFETCH}), or any JSON path in the scenario
                    (cluster.rtt_us, queries[0].fragments[1].instances_per_executor,
                    exchanges[0].rows_total). VALUE is JSON, or a bare string. May be
                    repeated.
  --output FILE     Write results JSON to FILE (temporary file, then rename).
  --summary         Print a readable summary to stdout (results go to --output): the
                    exchanges (or, past 20, the top queries by runtime and by blocked time),
                    totals, peak-query memory, failures and their reason, exchanges that
                    kept K=1, measured vs simulated where the results carry `expected`,
                    and for one exchange a one-line lesson from its bound.
  --format F        Summary format: text (default), md (Markdown) or csv (one row per
                    query, or per exchange when no exchange names a query).
  --top N           Queries listed by runtime and by blocked time (default 10).
  --timing          Print wall-clock time, simulated RPCs per wall second, peak memory (of
                    the largest process: with --jobs, the largest query's) and the models'
                    events run to stderr as one JSON line (never part of the results).
  --progress        Print simulated time and finished exchanges to stderr about once a
                    second (default when stderr is a terminal; --no-progress turns it off).
  --jobs N          With query_order "sequential", simulate N queries at once in child
                    processes (0 = one per core); the results do not depend on N.
  --dask ADDRESS    With query_order "sequential", simulate the queries on the Dask cluster
                    at ADDRESS (tcp://host:8786, or local), in shares, and merge them here:
                    the same results as a local run (tools/dask_run.py; the workers need
                    exsim at the same path). Its plumbing, for other schedulers:
                    --query-share K/N writes the parts of share K of N of the queries;
                    --from-parts DIR makes the results of the shares written in DIR.

Exit status: 0 success, 2 bad input (the message names the file and JSON path) or a
missing dependency (profile import, compare and diff need /usr/bin/python3, and
python3-thrift for profile logs), 1 internal error.
)";

// profile import, compare, diff (module tools.impala_profile) and run --dask (tools.dask_run):
// replace this process with the system Python running the project's module, the source directory
// first on its module path.
int exec_python_tool(int argc, char** argv, const char* module) {
  if (access(EXSIM_PYTHON, X_OK) != 0) {
    std::cerr << "exsim: " << argv[1] << ": needs " << EXSIM_PYTHON
              << " (Debian's python3, and python3-thrift for profile logs): apt-get install python3 "
                 "python3-thrift\n";
    return kExitBadInput;
  }
  const char* old = std::getenv("PYTHONPATH");
  const std::string path = std::string(EXSIM_SOURCE_DIR) + (old && *old ? std::string(":") + old : "");
  setenv("PYTHONPATH", path.c_str(), 1);
  // The tool validates what it writes with this same binary.
  std::string self(4096, '\0');
  const ssize_t n = readlink("/proc/self/exe", self.data(), self.size() - 1);
  if (n > 0 && !std::getenv("EXSIM")) setenv("EXSIM", self.substr(0, static_cast<size_t>(n)).c_str(), 1);
  std::vector<char*> args{const_cast<char*>(EXSIM_PYTHON), const_cast<char*>("-P"), const_cast<char*>("-m"),
                          const_cast<char*>(module)};
  for (int i = 1; i < argc; ++i)
    args.push_back(argv[i]);
  args.push_back(nullptr);
  execv(EXSIM_PYTHON, args.data());
  std::cerr << "exsim: cannot run " << EXSIM_PYTHON << ": " << std::strerror(errno) << "\n";
  return kExitBadInput;
}

const std::vector<std::string> kOptions{"--set",  "--output", "--summary",  "--format",     "--top",
                                        "--timing", "--progress", "--no-progress", "--jobs", "--dask",
                                        "--query-share", "--from-parts", "--help", "--version"};
const std::vector<std::string> kCommands{"run",    "validate", "explain", "migrate", "summary", "schema",
                                         "params", "fields",   "rules",   "profile", "compare", "diff"};

// The usage text, the flag names filled in from the parameter table.
std::string usage() {
  std::string text = kUsage;
  auto fill = [&](const std::string& slot, exsim::Section s) {
    std::string names;
    for (const exsim::ParamSpec* p : exsim::params_of(s))
      names += (names.empty() ? "" : ", ") + p->name;
    text.replace(text.find(slot), slot.size(), names);
  };
  fill("{FLAGS}", exsim::Section::flags);
  fill("{PREFETCH}", exsim::Section::remote_scan_prefetch);
  const std::string rules = "{RULES}";
  text.replace(text.find(rules), rules.size(), fmt::format("{}", fmt::join(exsim::rule_names(), ", ")));
  return text;
}

// "PATH: WHAT: the operating system's reason" for a failed file operation.
exsim::InputError file_error(const std::string& path, const std::string& what, int error) {
  return exsim::InputError(fmt::format("{}: {}: {}", path, what, std::strerror(error)));
}

std::string parent_dir(const std::string& path) {
  const size_t slash = path.find_last_of('/');
  return slash == std::string::npos ? "." : slash == 0 ? "/" : path.substr(0, slash);
}

// Fails before a simulation, not after it, when the results could not be written: the folder is
// missing or not writable, or the path is a folder.
void check_output_path(const std::string& path) {
  struct stat existing {};
  if (stat(path.c_str(), &existing) == 0 && !S_ISREG(existing.st_mode) && !S_ISDIR(existing.st_mode))
    return; // a device or FIFO, written through
  const std::string dir = parent_dir(path);
  if (access(dir.c_str(), W_OK) != 0)
    throw file_error(path, fmt::format("cannot write the results file in {}", dir), errno);
  struct stat st {};
  if (stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode))
    throw file_error(path, "cannot write the results file", EISDIR);
}

struct Args {
  std::string command;
  std::string scenario;   // the first argument after the command: a scenario, results file or RULE
  std::string rule_input; // rules RULE FILE: the file of inputs
  std::vector<exsim::Override> overrides;
  std::string output;
  bool summary = false;
  exsim::SummaryOptions summary_options;
  bool explain_json = false;
  std::string format; // --format as given: its values depend on the command (check_command_args)
  bool timing = false;
  int progress = -1; // -1: when stderr is a terminal
  int jobs = 1;
  long share = -1, shares = 0; // --query-share K/N: simulate share K of N of the queries, write their parts
  std::string from_parts;       // --from-parts DIR: the results of the parts there, not a simulation
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
    else if (arg == "--format" || arg.rfind("--format=", 0) == 0) {
      a.format = arg == "--format" ? value(arg) : arg.substr(9);
      a.explain_json = a.format == "json";
    } else if (arg == "--top") {
      const std::string v = value(arg);
      if (v.empty() || v.find_first_not_of("0123456789") != std::string::npos || v.size() > 6 || v == "0")
        throw exsim::InputError(fmt::format("--top {}: expected a number of queries >= 1", v));
      a.summary_options.top = std::stoi(v);
    } else if (arg == "--timing")
      a.timing = true;
    else if (arg == "--jobs" || arg == "-j") {
      const std::string v = value(arg);
      if (v.empty() || v.find_first_not_of("0123456789") != std::string::npos || v.size() > 4)
        throw exsim::InputError(
            fmt::format("--jobs {}: expected a number of processes (0 = one per core)", v));
      a.jobs = std::stoi(v);
      if (a.jobs == 0) a.jobs = static_cast<int>(sysconf(_SC_NPROCESSORS_ONLN));
    } else if (arg == "--query-share") {
      const std::string v = value(arg);
      const size_t slash = v.find('/');
      const std::string k = v.substr(0, slash), n = slash == std::string::npos ? "" : v.substr(slash + 1);
      auto digits = [](const std::string& t) {
        return !t.empty() && t.size() <= 6 && t.find_first_not_of("0123456789") == std::string::npos;
      };
      if (!digits(k) || !digits(n) || std::stol(n) < 1 || std::stol(k) >= std::stol(n))
        throw exsim::InputError(
            fmt::format("--query-share {}: expected K/N, share K (from 0) of N shares, e.g. 0/4", v));
      a.share = std::stol(k);
      a.shares = std::stol(n);
    } else if (arg == "--from-parts")
      a.from_parts = value(arg);
    else if (arg == "--progress")
      a.progress = 1;
    else if (arg == "--no-progress")
      a.progress = 0;
    else if (arg == "--help" || arg == "-h" || arg == "--version")
      a.command = arg;
    else if (!arg.empty() && arg[0] == '-')
      throw exsim::InputError(fmt::format("{}: unknown option;{} see exsim --help", arg,
                                          exsim::did_you_mean(arg.substr(0, arg.find('=')), kOptions)));
    else if (a.command.empty())
      a.command = arg;
    else if (a.scenario.empty())
      a.scenario = arg;
    else if (a.command == "rules" && a.rule_input.empty())
      a.rule_input = arg;
    else
      throw exsim::InputError(fmt::format("{}: unexpected extra argument (see exsim --help)", arg));
  }
  return a;
}

// Writes `text` to an open stream and closes it; false (errno set) when any of it failed.
bool write_all(std::FILE* out, const std::string& text) {
  const bool written = std::fwrite(text.data(), 1, text.size(), out) == text.size() && std::fflush(out) == 0;
  const int error = errno;
  const bool closed = std::fclose(out) == 0;
  if (!written) errno = error;
  return written && closed;
}

// A regular file is replaced atomically (a temporary file beside it, then rename); a symbolic link
// keeps being a link (its target is replaced); anything else that exists (/dev/stdout, a FIFO, a
// device) is written through, never replaced. A failed write is an error either way.
void write_atomically(const std::string& requested, const std::string& text) {
  std::string path = requested;
  struct stat st {};
  // What the name reaches, links followed by the system: a pipe or a terminal behind /dev/stdout (a
  // link to /proc/self/fd/1, whose own target is no path) is written through.
  if (stat(requested.c_str(), &st) == 0 && !S_ISREG(st.st_mode) && !S_ISDIR(st.st_mode)) {
    std::FILE* out = std::fopen(requested.c_str(), "wb");
    if (!out) throw file_error(requested, "cannot write the results file", errno);
    if (!write_all(out, text)) throw file_error(requested, "writing the results failed", errno);
    return;
  }
  for (int links = 0; lstat(path.c_str(), &st) == 0 && S_ISLNK(st.st_mode); ++links) { // to the link's target
    if (links == 40) throw file_error(requested, "cannot write the results file", ELOOP);
    std::string target(4096, '\0');
    const ssize_t n = readlink(path.c_str(), target.data(), target.size());
    if (n < 0) throw file_error(requested, "cannot write the results file", errno);
    target.resize(static_cast<size_t>(n));
    path = target[0] == '/' ? target : parent_dir(path) + "/" + target;
  }
  if (stat(path.c_str(), &st) == 0 && !S_ISREG(st.st_mode)) {
    if (S_ISDIR(st.st_mode)) throw file_error(requested, "cannot write the results file", EISDIR);
    std::FILE* out = std::fopen(path.c_str(), "wb");
    if (!out) throw file_error(requested, "cannot write the results file", errno);
    if (!write_all(out, text)) throw file_error(requested, "writing the results failed", errno);
    return;
  }
  const std::string tmp = fmt::format("{}.tmp.{}", path, static_cast<long>(getpid()));
  std::FILE* out = std::fopen(tmp.c_str(), "wb");
  if (!out) throw file_error(requested, fmt::format("cannot write the results file ({})", tmp), errno);
  if (!write_all(out, text)) {
    const int error = errno;
    std::remove(tmp.c_str());
    throw file_error(requested, "writing the results failed", error);
  }
  if (std::rename(tmp.c_str(), path.c_str()) != 0) {
    const int error = errno;
    std::remove(tmp.c_str());
    throw file_error(requested, "cannot move the results into place", error);
  }
}

// A results document written by `exsim run --output`, and its kind.
std::pair<nlohmann::json, const exsim::ScenarioKind*> read_results(const std::string& path) {
  const nlohmann::json r = exsim::parse_input_json_unordered(exsim::read_input_file(path, "results file"), path);
  const exsim::ScenarioKind* kind = exsim::results_kind(r);
  if (kind == nullptr)
    throw exsim::InputError(
        fmt::format("{}: kind: expected a results file written by `exsim run --output`, of a "
                    "kind this exsim runs; got {}",
                    path, r.at("kind").dump()));
  for (const char* key : {"scenario", kind->results_key, "summary"})
    if (!r.is_object() || !r.contains(key))
      throw exsim::InputError(
          fmt::format("{}: {}: required key is missing; expected a results file written by "
                      "`exsim run --output`",
                      path, key));
  return {r, kind};
}

// A run that cannot fit in the memory this process may use is refused before it starts
// (input/scenario.hpp, kBytesPerChannel): its channels against the address-space limit and the
// machine's memory. It decides nothing about the results.
void check_memory(const exsim::Scenario& sc, const std::string& path) {
  const int64_t channels = exsim::channels_at_once(sc);
  const double need = static_cast<double>(channels) * static_cast<double>(exsim::kBytesPerChannel);
  const exsim::MemoryLimit limit = exsim::memory_limit();
  const double available = limit.bytes;
  const char* what = limit.what;
  if (available > 0 && need > available)
    throw exsim::InputError(fmt::format("{}: the run needs about {:.1f} GiB for its {} channels ({:.2f} KB each), "
                                        "more than {} ({:.1f} GiB)",
                                        path, need / (1 << 30), channels, exsim::kBytesPerChannel / 1000.0, what,
                                        available / (1 << 30)));
}

// What the command line holds that its command does not take: --format values of another command,
// a SCENARIO given to a command that reads none.
void check_command_args(Args& a) {
  const bool json_or_text = a.command == "explain" || a.command == "params" || a.command == "fields";
  if (!a.format.empty()) {
    if (json_or_text) {
      if (a.format != "text" && a.format != "json")
        throw exsim::InputError(fmt::format("{}: --format {}: expected text or json", a.command, a.format));
    } else if (a.command != "run" && a.command != "summary") {
      throw exsim::InputError(
          fmt::format("--format: only for run, summary, explain, params and fields, not {}", a.command));
    } else if (a.format == "json") {
      throw exsim::InputError(
          fmt::format("--format json: only for explain, params and fields; {} takes text, md or csv", a.command));
    } else if (!exsim::parse_summary_format(a.format, a.summary_options.format)) {
      throw exsim::InputError(fmt::format("{}: --format {}: expected text, md or csv", a.command, a.format));
    }
  }
  if ((a.command == "params" || a.command == "schema" || a.command == "fields") && !a.scenario.empty())
    throw exsim::InputError(
        fmt::format("{}: unexpected extra argument; {} takes no file (see exsim --help)", a.scenario, a.command));
}

// A workload's queries in shares, elsewhere (tools/dask_run.py): --query-share K/N simulates share K
// and writes its queries' parts; --from-parts DIR makes the results of the shares written there.
std::vector<std::string> read_parts(const exsim::Scenario& sc, const std::string& dir) {
  std::vector<std::string> parts(sc.queries.size());
  std::vector<std::string> files;
  DIR* d = opendir(dir.c_str());
  if (!d) throw file_error(dir, "--from-parts: cannot read the folder of query shares", errno);
  while (const dirent* e = readdir(d)) {
    const std::string name = e->d_name;
    if (name.size() > 5 && name.compare(name.size() - 5, 5, ".json") == 0) files.push_back(dir + "/" + name);
  }
  closedir(d);
  std::sort(files.begin(), files.end());
  for (const std::string& path : files) {
    std::ifstream in(path, std::ios::binary);
    std::stringstream text;
    text << in.rdbuf();
    try {
      for (const nlohmann::json& entry : nlohmann::json::parse(text.str())) {
        const size_t q = entry.at("index").get<size_t>();
        if (q >= parts.size() || !parts[q].empty())
          throw exsim::InputError(fmt::format("{}: --from-parts: query index {} is {}", path, q,
                                              q >= parts.size() ? "not in the scenario" : "in two shares"));
        parts[q] = entry.at("part").dump();
      }
    } catch (const nlohmann::json::exception& e) {
      throw exsim::InputError(
          fmt::format("{}: --from-parts: not a share `exsim run --query-share` wrote: {}", path, e.what()));
    }
  }
  for (size_t q = 0; q < parts.size(); ++q)
    if (parts[q].empty())
      throw exsim::InputError(fmt::format("{}: --from-parts: no share holds query {} (\"{}\")", dir, q,
                                          sc.queries[q].name));
  return parts;
}

void check_parts_args(const Args& a, const exsim::Scenario& sc) {
  if (a.share < 0 && a.from_parts.empty()) return;
  const char* option = a.share >= 0 ? "--query-share" : "--from-parts";
  if (a.share >= 0 && !a.from_parts.empty())
    throw exsim::InputError(
        "--query-share and --from-parts: one or the other (a share, or the results of shares)");
  if (sc.remote_scan || sc.query_order != exsim::QueryOrder::sequential)
    throw exsim::InputError(fmt::format("{}: only for a workload whose queries run one after another "
                                        "(query_order \"sequential\"): each is simulated alone",
                                        option));
  if (a.share >= 0 && (a.summary || a.timing || a.jobs != 1))
    throw exsim::InputError(
        "--query-share: writes its queries' parts, not results: no --summary, --timing or --jobs");
}

int run(const Args& a) {
  const std::string path = a.scenario.empty() ? std::string(EXSIM_DEFAULT_SCENARIO) : a.scenario;
  const exsim::Scenario sc = exsim::load_scenario(path, a.overrides);
  check_memory(sc, path);
  check_parts_args(a, sc);
  if (!a.output.empty()) check_output_path(a.output);
  if (a.share >= 0) {
    const std::string part =
        exsim::query_share(sc, static_cast<size_t>(a.share), static_cast<size_t>(a.shares)) + "\n";
    if (a.output.empty())
      std::cout << part;
    else
      write_atomically(a.output, part);
    return kExitOk;
  }
  const exsim::ScenarioKind& kind = exsim::kind_of(sc);
  const std::string note = kind.note(sc);
  if (!note.empty()) std::cerr << note << "\n";
  const auto t0 = std::chrono::steady_clock::now();
  const bool progress = a.progress == 1 || (a.progress == -1 && isatty(STDERR_FILENO));
  // The simulation returns the models' counters; output/ makes the results document of them.
  uint64_t events = 0; // the models' events (0 where a kind does not count them)
  nlohmann::json results;
  try {
    results = kind.run(sc, {progress, a.jobs, a.from_parts.empty() ? std::vector<std::string>{}
                                                                   : read_parts(sc, a.from_parts)},
                       events);
  } catch (const nlohmann::json::exception& e) {
    if (a.from_parts.empty()) throw;
    throw exsim::InputError(fmt::format("--from-parts {}: a part is not one `exsim run --query-share` of this "
                                        "scenario wrote: {}",
                                        a.from_parts, e.what()));
  } catch (const std::invalid_argument& e) {
    if (a.from_parts.empty()) throw;
    throw exsim::InputError(fmt::format("--from-parts {}: {}", a.from_parts, e.what()));
  }
  const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  const std::string text = results.dump(2) + "\n";
  if (!a.output.empty()) write_atomically(a.output, text);
  if (a.summary)
    kind.print_summary(results, a.summary_options);
  else if (a.output.empty())
    std::cout << text;
  else // what was written, and what reads it
    std::cerr << fmt::format("exsim run: results in {}; `exsim summary {}` says what they show\n", a.output, a.output);
  if (a.timing) {
    // The largest process of the run: this one, or a query's process when a workload ran in several.
    rusage ru{}, children{};
    getrusage(RUSAGE_SELF, &ru);
    getrusage(RUSAGE_CHILDREN, &children);
    const auto& s = results.at("summary");
    // Requests simulated: RPCs of the exchanges, or GETs of a remote scan.
    const double requests = kind.requests_of(s);
    nlohmann::json timing{{"wall_s", wall},
                          {kind.requests, requests},
                          {std::string(kind.requests) + "_per_wall_s", wall > 0 ? requests / wall : 0.0},
                          {"peak_rss_kib", static_cast<int64_t>(std::max(ru.ru_maxrss, children.ru_maxrss))}};
    if (events > 0) timing["events"] = events;
    std::cerr << timing.dump() << "\n";
  }
  return kExitOk;
}

// `exsim rules RULE [FILE]`: each line of FILE (or stdin), a JSON array of inputs, answered by one
// line as soon as it is read, so that a program can keep one exsim open and ask as it goes.
int answer_rules(const Args& a) {
  if (a.scenario.empty())
    throw exsim::InputError(fmt::format("rules: expected the name of a rule: {} (see exsim --help)",
                                        fmt::join(exsim::rule_names(), ", ")));
  if (!a.overrides.empty() || !a.output.empty() || a.summary)
    throw exsim::InputError("rules: takes a RULE and a FILE of inputs, no --set, --output or --summary");
  exsim::answer_rule(a.scenario, nlohmann::json::array(), "rules"); // an unknown rule fails before reading
  const bool from_stdin = a.rule_input.empty() || a.rule_input == "-";
  std::istringstream file;
  if (!from_stdin) file.str(exsim::read_input_file(a.rule_input, "file of inputs"));
  std::istream& in = from_stdin ? std::cin : file;
  const std::string source = from_stdin ? "stdin" : a.rule_input;
  std::string line;
  for (size_t n = 1; std::getline(in, line); ++n) {
    if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
    const std::string label = fmt::format("{}:{}", source, n);
    const nlohmann::json answers =
        exsim::answer_rule(a.scenario, exsim::parse_input_json_unordered(line, label), label);
    std::cout << answers.dump() << std::endl;
  }
  return kExitOk;
}

// `exsim params` and `exsim fields`: one of the simulator's tables, for people or (--format json)
// for programs.
int print_table(const Args& a, const nlohmann::json& for_programs, const std::string& heading,
                const std::string& for_people) {
  if (a.explain_json) {
    std::cout << for_programs.dump(1) << "\n";
    return kExitOk;
  }
  if (a.summary_options.format != exsim::SummaryFormat::text)
    throw exsim::InputError(fmt::format("{}: --format: expected text or json", a.command));
  std::cout << heading << for_people;
  return kExitOk;
}

} // namespace

int run_command(int argc, char** argv) {
  if (argc > 1 && (std::strcmp(argv[1], "profile") == 0 || std::strcmp(argv[1], "compare") == 0 ||
                   std::strcmp(argv[1], "diff") == 0))
    return exec_python_tool(argc, argv, "tools.impala_profile");
  if (argc > 1 && std::strcmp(argv[1], "run") == 0)
    for (int i = 2; i < argc; ++i)
      if (std::strcmp(argv[i], "--dask") == 0 || std::strncmp(argv[i], "--dask=", 7) == 0)
        return exec_python_tool(argc, argv, "tools.dask_run");
  try {
    Args a = parse_args(argc, argv);
    if (a.command.empty() || a.command == "--help" || a.command == "-h" || a.command == "help") {
      std::cout << usage();
      return a.command.empty() ? kExitBadInput : kExitOk;
    }
    if (a.command == "--version") {
      std::cout << "exsim " << EXSIM_VERSION << "\n";
      return kExitOk;
    }
    if (std::find(kCommands.begin(), kCommands.end(), a.command) != kCommands.end()) check_command_args(a);
    if (a.command == "run") return run(a);
    if (a.command == "validate") {
      if (a.scenario.empty())
        throw exsim::InputError("validate: expected a SCENARIO file (see exsim --help)");
      const exsim::Scenario sc = exsim::load_scenario(a.scenario, a.overrides);
      std::cout << fmt::format("{}: valid ({})\n", a.scenario, exsim::kind_of(sc).validated(sc));
      return kExitOk;
    }
    if (a.command == "summary") {
      if (a.scenario.empty())
        throw exsim::InputError(
            "summary: expected a RESULTS file written by `exsim run --output` (see exsim --help)");
      const auto [r, kind] = read_results(a.scenario);
      try {
        kind->print_summary(r, a.summary_options);
      } catch (const nlohmann::json::exception& e) {
        throw exsim::InputError(
            fmt::format("{}: not a results file of this exsim: {}", a.scenario, e.what()));
      }
      return kExitOk;
    }
    if (a.command == "explain") {
      const std::string path = a.scenario.empty() ? std::string(EXSIM_DEFAULT_SCENARIO) : a.scenario;
      const nlohmann::json plan = exsim::explain(exsim::load_scenario(path, a.overrides));
      std::cout << (a.explain_json ? plan.dump(2) + "\n" : exsim::explain_text(plan));
      return kExitOk;
    }
    if (a.command == "migrate") {
      if (a.scenario.empty()) throw exsim::InputError("migrate: expected a SCENARIO file (see exsim --help)");
      const nlohmann::ordered_json original = exsim::read_scenario_json(a.scenario);
      const nlohmann::ordered_json migrated = exsim::migrate_scenario(original, a.scenario);
      if (migrated == original)
        std::cerr << "exsim migrate: " << a.scenario << " is already schema_version " << exsim::kSchemaVersion
                  << "; written unchanged\n";
      exsim::build_scenario(nlohmann::json(migrated), a.scenario); // it still loads
      const std::string text = migrated.dump(2) + "\n";
      if (a.output.empty())
        std::cout << text;
      else
        write_atomically(a.output, text);
      return kExitOk;
    }
    if (a.command == "schema") {
      std::cout << exsim::scenario_schema().dump(2) << "\n";
      return kExitOk;
    }
    if (a.command == "params")
      return print_table(a, exsim::parameters_json(),
                         "Scenario parameters (unit, default, check, meaning):\n", exsim::parameters_help());
    if (a.command == "fields")
      return print_table(
          a, exsim::fields_json(),
          "Results fields (type, unit, meaning; when an entry has it; the counters it reads):\n",
          exsim::fields_text());
    if (a.command == "rules") return answer_rules(a);
    throw exsim::InputError(fmt::format("{}: unknown command;{} commands: {} (see exsim --help)", a.command,
                                        exsim::did_you_mean(a.command, kCommands),
                                        fmt::join(kCommands, ", ")));
  } catch (const exsim::InputError& e) {
    std::cerr << "exsim: " << e.what() << "\n";
    return kExitBadInput;
  } catch (const std::bad_alloc&) {
    // What a scenario asks for is bounded up front; past those bounds the machine's memory is.
    std::cerr << "exsim: out of memory: the scenario needs more memory than this process may use (fewer "
                 "executors, instances or exchanges simulate in less)\n";
    return kExitBadInput;
  } catch (const std::exception& e) {
    std::cerr << "exsim: internal error: " << e.what() << "\n";
    return kExitInternal;
  }
}

int main(int argc, char** argv) {
  const int status = run_command(argc, argv);
  // Output on stdout (results, a summary, a migrated scenario) that did not reach it is a failure
  // (exsim run > /dev/full), not a success with nothing written.
  errno = 0;
  if (std::fflush(stdout) != 0 || !std::cout.flush() || std::ferror(stdout)) {
    std::cerr << "exsim: stdout: writing the output failed" << (errno != 0 ? ": " : "")
              << (errno != 0 ? std::strerror(errno) : "") << "\n";
    return status == kExitOk ? kExitBadInput : status;
  }
  return status;
}
