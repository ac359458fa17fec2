// The sender kinds (Impala's TPartitionType of a data stream sink), registered in one table: a row
// per kind says what every other place asks of it, so that adding a kind is a row here and its
// routing in partitioner.hpp.
//   const exsim::PartitioningTraits& t = exsim::traits(exsim::Partitioning::kudu);
//   if (t.routes_rows) ...   // hashes each row to its channel(s)
#pragma once

#include <string>
#include <vector>

namespace exsim {

enum class Partitioning { hash_partitioned, random, unpartitioned, kudu, directed };

struct PartitioningTraits {
  Partitioning kind;
  const char* name;        // as in scenarios and Impala's plans
  bool routes_rows;        // each row goes to the channel(s) its key picks: per-row hashing and copying,
                           // per-channel collectors (else whole input batches are sent)
  bool every_receiver;     // every batch goes to every receiver, serialized once (one buffer, not one a channel)
  bool configured_k;       // the daemon's K applies (the measured K=2 prototype: HASH_PARTITIONED and RANDOM);
                           // other kinds keep K=1 unless an exchange sets K itself
};

// Every kind, in the order of the enum.
const std::vector<PartitioningTraits>& partitioning_table();
const PartitioningTraits& traits(Partitioning p);

// Names, as they appear in scenarios and in Impala's plans.
const std::vector<std::string>& partitioning_names();
bool parse_partitioning(const std::string& name, Partitioning& out);
std::string to_string(Partitioning p);

// How a sender kind turns input batches into RPCs.
enum class SendMode {
  collectors,  // per-channel collectors, flushed when they reach capacity (HASH, KUDU, DIRECTED)
  whole_batch, // each input batch to one channel (RANDOM, or any kind with one channel)
  broadcast    // each input batch to every channel (UNPARTITIONED)
};
SendMode send_mode(Partitioning p, int channels);
// "collectors", "whole_batch", "broadcast": as `exsim params` and `exsim explain` name a mode.
const char* to_string(SendMode m);

} // namespace exsim
