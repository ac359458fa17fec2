// The registered network models (models/network/network_model): names, how each is solved, the
// parameter table's allowed values, and the one line a large run prints about its model.
#include "models/network/network_model.hpp"

#include "input/parameters.hpp"

#include <catch2/catch.hpp>

#include <string>

using namespace exsim;

TEST_CASE("network models: each registered once, found by name, offered by the parameter table",
          "[unit][network]") {
  const std::vector<std::string> names = network_model_names();
  CHECK(names == std::vector<std::string>{"exsim", "approx", "simgrid", "auto"});
  for (const NetworkModelKind& k : network_model_kinds()) {
    REQUIRE(find_network_model(k.name) == &k);
    CHECK(&network_model_kind(k.model) == &k);
  }
  CHECK(find_network_model("cm02") == nullptr);
  // Only the approximation lags max-min; SimGrid's model is the engine's own.
  CHECK(network_model_kind(NetworkModel::exsim).slack == 0);
  CHECK(network_model_kind(NetworkModel::approx).slack > 0);
  CHECK(network_model_kind(NetworkModel::simgrid).solver == NetworkModelKind::Solver::engine);
  const ParamSpec* p = find_param(Section::cluster, "network_model");
  REQUIRE(p != nullptr);
  CHECK(p->choices == names);
  CHECK(p->default_value.get<std::string>() == "auto");
  for (const std::string& n : names)
    CHECK(p->description.find(n + " = ") != std::string::npos);
}

TEST_CASE("network models: a run above the size where the exact one is slow says which it used",
          "[unit][network]") {
  CHECK(network_model_note(NetworkModel::exsim, kExactNetworkSlowAbove).empty());
  const std::string exact = network_model_note(NetworkModel::exsim, 150);
  INFO(exact);
  CHECK(exact.rfind("exsim: 150 executors, network model exsim: ", 0) == 0);
  CHECK(exact.find("cluster.network_model=approx") != std::string::npos);
  CHECK(exact.find('\n') == std::string::npos);
  const std::string approx = network_model_note(NetworkModel::approx, 150);
  CHECK(approx ==
        "exsim: 150 executors, network model approx: as the scenario chose (cluster.network_model)");
  const std::string chosen = network_model_note(NetworkModel::automatic, 150);
  INFO(chosen);
  CHECK(chosen.rfind("exsim: 150 executors, network model auto: approx, as auto runs it above 32", 0) == 0);
  CHECK(network_model_note(NetworkModel::automatic, kExactNetworkSlowAbove).empty());
}

TEST_CASE("network models: auto runs the exact solver up to the size where it is slow, the approximation "
          "above, and any other choice as it is",
          "[unit][network]") {
  CHECK(resolve_network_model(NetworkModel::automatic, 1) == NetworkModel::exsim);
  CHECK(resolve_network_model(NetworkModel::automatic, kExactNetworkSlowAbove) == NetworkModel::exsim);
  CHECK(resolve_network_model(NetworkModel::automatic, kExactNetworkSlowAbove + 1) == NetworkModel::approx);
  for (NetworkModel m : {NetworkModel::exsim, NetworkModel::approx, NetworkModel::simgrid})
    for (int executors : {1, kExactNetworkSlowAbove + 1})
      CHECK(resolve_network_model(m, executors) == m);
  CHECK(network_model_kind(NetworkModel::automatic).solver == NetworkModelKind::Solver::chosen);
}
