// Scenarios of kind "remote_scan": executors reading Parquet splits from S3 through Velox's
// executor-global split prefetch. Loading (structure against the parameter table's remote_scan
// sections, then meaning) and the typed form sim/remote_scan runs.
//   if (exsim::is_remote_scan(doc)) return exsim::load_remote_scan(std::move(doc), file);
#pragma once

#include "input/scenario.hpp"
#include "models/remote_scan/split_prefetch.hpp"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <string>
#include <vector>

namespace exsim {

// The members without an initialiser, and most of `prefetch`'s, are each set by a row of the
// parameter table (input/rows/remote_scan.cpp).
struct RemoteScanScenario {
  int executors;
  int hosts;                        // executor e runs on host e % hosts
  double nic_bandwidth_gbps;        // per host, inbound
  double stream_mb_per_s;           // one GET stream, 10^6 bytes per second
  PrefetchConfig prefetch{};        // shared by the executors; each gets its own seed
  std::vector<int64_t> split_bytes; // data bytes of every split, in queue order

  int host_of(int executor) const { return executor % hosts; }
  // The splits of one executor (split i goes to executor i % executors), in order.
  std::vector<int64_t> splits_of(int executor) const;
  int64_t data_bytes_total() const;
};

// Whether a scenario document selects the remote_scan kind ("kind": "remote_scan").
bool is_remote_scan(const nlohmann::json& doc);

// Validates and resolves a remote-scan document (overrides already applied). The Scenario holds
// the name, description, seed and settings; its `remote_scan` member the rest.
Scenario load_remote_scan(nlohmann::json doc, const std::string& file);

} // namespace exsim
