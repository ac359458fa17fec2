// A sender's configuration, built once per exchange from its kind, its shape and its effective
// flags: the K it runs with (and why the rule kept K=1 where the flags ask for more), how it turns
// input batches into RPCs, how many rows a collector holds, and the planner's memory estimate. The
// sender runs with it and the results report it; nothing else derives these again.
//   exsim::SenderConfig c = exsim::sender_config({.partitioning = Partitioning::hash_partitioned,
//                                                  .receivers = 5, .shape = shape, .buffer_bytes = 16384,
//                                                  .batch_size = 1024, .k_flag = 2});
#pragma once

#include "models/exchange/batch.hpp"
#include "models/exchange/partitioning.hpp"
#include "models/window/window_policy.hpp"

#include <cstdint>
#include <string>

namespace exsim {

// What decides a sender's configuration.
struct SenderInputs {
  Partitioning partitioning = Partitioning::hash_partitioned;
  bool merging = false;
  int receivers = 1;            // receiver instances: the sender's channels
  BatchShape shape{};
  int64_t buffer_bytes = 0;     // data_stream_sender_buffer_size
  int64_t batch_size = 0;       // rows of an input batch
  int k_flag = 1;               // rpcs_in_flight_per_channel, as the effective flags set it
  bool k_set_by_exchange = false; // the exchange's own flags set K: a what-if that applies to any kind
  WindowPolicyKind k_policy = WindowPolicyKind::fixed; // rpcs_in_flight_policy
  int k_max = 1;                // rpcs_in_flight_max: an adaptive policy's cap
};

struct SenderConfig {
  int k_configured = 1; // the K the flags ask for
  int k = 1;            // RPCs in flight per channel the sender runs with
  std::string k_reason; // why k differs from k_configured ("" where it does not)
  // How each channel's K moves: fixed at k, or adapted from k up to the policy's cap (where the K
  // rule keeps K=1, fixed at 1 whatever the flags ask).
  WindowPolicySpec window;
  SendMode mode = SendMode::collectors;
  int64_t collector_rows = 1;       // rows a channel's collector holds before it is sent (used by collectors)
  int64_t planned_batch_bytes = 0;  // the average outbound batch the planner budgets for
  int64_t memory_estimate_bytes = 0; // the planner's estimate per sender instance (K_max + 1 batches per
                                     // channel under an adaptive policy)
};

// The default K rule: the configured K (and its policy) applies to non-merging HASH_PARTITIONED and
// RANDOM senders; every other kind keeps K=1 unless the exchange sets K in its own flags.
SenderConfig sender_config(const SenderInputs& in);

} // namespace exsim
