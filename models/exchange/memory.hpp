// The planner's memory estimates for an exchange (DataStreamSink and ExchangeNode), with the
// sink's "2 batches per channel" generalised to K+1 under K slots.
//   int64_t per_sender = exsim::sender_memory_estimate(Partitioning::hash_partitioned, 5, 2, 16384);
#pragma once

#include "models/exchange/partitioning.hpp"

#include <cstdint>

namespace exsim {

constexpr int64_t kMinExchangeNodeEstimateBytes = 16 * 1024;

// Channels the sink budgets for: every receiver when partitioned (RANDOM counts), else one.
int64_t estimate_channels(Partitioning p, int receivers);

// Per sender instance: channels x (K+1) batches x 2 (tuple data + compression scratch) x
// average outbound batch size, the batch capped at 8 MB.
int64_t sender_memory_estimate(Partitioning p, int receivers, int k, int64_t avg_batch_bytes);

// Per receiver instance: (merging ? senders : 1) x exchg_node_buffer_size_bytes, at least 16 KB.
int64_t receiver_memory_estimate(bool merging, int senders, int64_t buffer_limit_bytes);

} // namespace exsim
