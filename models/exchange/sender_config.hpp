// A sender's configuration, built once per exchange from its kind, its shape and its effective
// flags: the K it runs with (and why the rule kept K=1 where the flags ask for more), how it turns
// input batches into RPCs, how many rows a collector holds, and the planner's memory estimate. The
// sender runs with it and the results report it; nothing else derives these again.
//   exsim::SenderConfig c = exsim::sender_config({.partitioning = Partitioning::hash_partitioned,
//                                                  .receivers = 5, .shape = shape, .flags = flags});
#pragma once

#include "models/config/settings.hpp"
#include "models/exchange/batch.hpp"
#include "models/exchange/partitioning.hpp"
#include "models/window/window_policy.hpp"

#include <cstdint>
#include <string>

namespace exsim {

// What decides a sender's configuration: its kind, its channels, its rows' shape, and the flags it
// runs with as the parameter table bound them (the daemon's, with the exchange's own over them).
// A flag that shapes the configuration is read here from `flags`: nothing copies it on the way.
struct SenderInputs {
  Partitioning partitioning = Partitioning::hash_partitioned;
  bool merging = false;
  int receivers = 1;              // receiver instances: the sender's channels
  BatchShape shape{};
  Flags flags{};                  // data_stream_sender_buffer_size, batch_size, rpcs_in_flight_* ...
  bool k_set_by_exchange = false; // the exchange's own flags set K: a what-if that applies to any kind
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
