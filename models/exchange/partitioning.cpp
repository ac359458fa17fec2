#include "models/exchange/partitioning.hpp"

#include <stdexcept>

namespace exsim {

const std::vector<PartitioningTraits>& partitioning_table() {
  // kind, name, routes_rows, every_receiver, configured_k
  static const std::vector<PartitioningTraits> table{
      {Partitioning::hash_partitioned, "HASH_PARTITIONED", true, false, true},  // rows hashed on the keys
      {Partitioning::random, "RANDOM", false, false, true},                     // shuffled round robin of batches
      {Partitioning::unpartitioned, "UNPARTITIONED", false, true, false},       // broadcast, or a gather to one
      {Partitioning::kudu, "KUDU", true, false, false},                         // rows to their Kudu tablet
      {Partitioning::directed, "DIRECTED", true, false, false},                 // rows to the hosts of their file
  };
  return table;
}

const PartitioningTraits& traits(Partitioning p) {
  const auto& table = partitioning_table();
  const auto i = static_cast<size_t>(p);
  if (i >= table.size() || table[i].kind != p) throw std::logic_error("partitioning table out of enum order");
  return table[i];
}

const std::vector<std::string>& partitioning_names() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> out;
    for (const auto& t : partitioning_table()) out.emplace_back(t.name);
    return out;
  }();
  return names;
}

bool parse_partitioning(const std::string& name, Partitioning& out) {
  for (const auto& t : partitioning_table())
    if (name == t.name) {
      out = t.kind;
      return true;
    }
  return false;
}

std::string to_string(Partitioning p) { return traits(p).name; }

SendMode send_mode(Partitioning p, int channels) {
  const PartitioningTraits& t = traits(p);
  if (t.every_receiver) return channels == 1 ? SendMode::whole_batch : SendMode::broadcast;
  if (!t.routes_rows || channels == 1) return SendMode::whole_batch;
  return SendMode::collectors;
}

const char* to_string(SendMode m) {
  switch (m) {
  case SendMode::collectors:
    return "collectors";
  case SendMode::whole_batch:
    return "whole_batch";
  case SendMode::broadcast:
    return "broadcast";
  }
  throw std::logic_error("unknown send mode");
}

} // namespace exsim
