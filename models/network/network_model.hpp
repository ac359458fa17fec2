// The network models a scenario may choose (cluster.network_model), one row each: its name, what
// it is, and how the engine runs it. The parameter table takes its allowed values and their
// meaning from here, sim/network.* builds the row's transfer network; adding a model that is a
// setting of exsim's solver is one row, one that is not also needs its adapter in sim/.
//   const NetworkModelKind& k = network_model_kind(NetworkModel::approx);   // k.name == "approx"
#pragma once

#include <string>
#include <vector>

namespace exsim {

// In the order of network_model_kinds()' rows: the parameter table reads a name by its place there.
// `automatic` is no model of its own: it names the one resolve_network_model picks by cluster size.
enum class NetworkModel { exsim, approx, simgrid, automatic };

struct NetworkModelKind {
  NetworkModel model;
  const char* name;
  const char* meaning; // one sentence for `exsim params`, the schema and the docs
  // How the engine runs it: exsim's engine-free solver (models/network/network_share), whose
  // shares may lag max-min by `slack` of a link's capacity (0: exact); or SimGrid's own model;
  // or, for `auto`, the model resolve_network_model picks.
  enum class Solver { share, engine, chosen } solver;
  double slack;
};

const std::vector<NetworkModelKind>& network_model_kinds();
const NetworkModelKind& network_model_kind(NetworkModel m);
// nullptr for an unknown name.
const NetworkModelKind* find_network_model(const std::string& name);
std::vector<std::string> network_model_names();

// Above this many executors exsim's exact solver takes much of a run: the TPC-DS workload
// re-planned for 40 executors ran 1.58x as long with it as with the approximation (103 s against
// 65 s wall, --jobs 2; its q67a 87 s against 48 s), for 20 executors 1.07x (37.4 s against 34.8 s);
// one mt_dop=8 hash exchange alone, a third of the run at 80 executors and 70% at 150. `auto`
// (the default) runs the approximation above it, and a run that large says which model it used
// and why, on one line (empty below it).
constexpr int kExactNetworkSlowAbove = 32;
// The model that runs: `m` itself, or for `auto` exsim's exact solver up to kExactNetworkSlowAbove
// executors and its approximation above.
NetworkModel resolve_network_model(NetworkModel m, int executors);
std::string network_model_note(NetworkModel m, int executors);

} // namespace exsim
