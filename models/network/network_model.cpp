#include "models/network/network_model.hpp"

#include <stdexcept>

namespace exsim {

const std::vector<NetworkModelKind>& network_model_kinds() {
  using S = NetworkModelKind::Solver;
  static const std::vector<NetworkModelKind> kinds = {
      {NetworkModel::exsim, "exsim",
       "exsim's own max-min solver, whose cost per transfer does not grow with executors squared; the same "
       "results as simgrid (to 1e-9)",
       S::share, 0},
      // The slack: on the 150-executor exchange 0.01, 0.02 and 0.05 took 59, 47 and 44 s of CPU;
      // 0.02 has most of the gain at less than half the error of 0.05 (docs/speed.md, "The
      // approximate network model": its error, measured).
      {NetworkModel::approx, "approx",
       "exsim's solver with bounded re-solves: a link is re-solved once its flows' shares have moved by 2% "
       "of its capacity since it last was; faster on large clusters, run times within 1% of exsim's "
       "(measured: docs/speed.md)",
       S::share, 0.02},
      {NetworkModel::simgrid, "simgrid",
       "SimGrid's CM02 model, the reference exsim is tested against (slower with many executors)", S::engine,
       0},
      {NetworkModel::automatic, "auto",
       "the default: exsim up to 32 executors, approx above, where the exact solver's re-solves take much of "
       "a run (approx's run times are within 0.04% of exsim's on the scaling cases, and on the TPC-DS "
       "workload for 40 executors 0.03% summed and 0.5% for its furthest query: docs/speed.md)",
       S::chosen, 0},
  };
  return kinds;
}

const NetworkModelKind& network_model_kind(NetworkModel m) {
  for (const NetworkModelKind& k : network_model_kinds())
    if (k.model == m) return k;
  throw std::logic_error("network_model_kind: an unregistered model");
}

const NetworkModelKind* find_network_model(const std::string& name) {
  for (const NetworkModelKind& k : network_model_kinds())
    if (name == k.name) return &k;
  return nullptr;
}

NetworkModel resolve_network_model(NetworkModel m, int executors) {
  if (m != NetworkModel::automatic) return m;
  return executors <= kExactNetworkSlowAbove ? NetworkModel::exsim : NetworkModel::approx;
}

std::string network_model_note(NetworkModel m, int executors) {
  if (executors <= kExactNetworkSlowAbove) return "";
  const std::string head = "exsim: " + std::to_string(executors) + " executors, network model " +
                           network_model_kind(m).name + ": ";
  if (m == NetworkModel::automatic)
    return head + "approx, as auto runs it above " + std::to_string(kExactNetworkSlowAbove) +
           " executors (run times within 1% of the exact model's: docs/speed.md); "
           "--set cluster.network_model=exsim runs the exact one";
  if (m == NetworkModel::exsim)
    return head + "the exact one, as the scenario chose; above " + std::to_string(kExactNetworkSlowAbove) +
           " executors its re-solves take much of an all-to-all exchange's run, and "
           "--set cluster.network_model=approx (or auto) is faster with run times within 1% (docs/speed.md: The approximate "
           "network model)";
  return head + "as the scenario chose (cluster.network_model)";
}

std::vector<std::string> network_model_names() {
  std::vector<std::string> names;
  for (const NetworkModelKind& k : network_model_kinds())
    names.emplace_back(k.name);
  return names;
}

} // namespace exsim
