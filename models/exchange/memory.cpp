#include "models/exchange/memory.hpp"

#include "models/exchange/batch.hpp"

#include <algorithm>

namespace exsim {

int64_t estimate_channels(Partitioning p, int receivers) {
  return traits(p).every_receiver ? 1 : std::max(1, receivers);
}

int64_t sender_memory_estimate(Partitioning p, int receivers, int k, int64_t avg_batch_bytes) {
  const int64_t batch = std::min(avg_batch_bytes, kCollectorMaxTupleBytes);
  return estimate_channels(p, receivers) * (k + 1) * 2 * batch;
}

int64_t receiver_memory_estimate(bool merging, int senders, int64_t buffer_limit_bytes) {
  const int64_t queues = merging ? std::max(1, senders) : 1;
  return std::max(kMinExchangeNodeEstimateBytes, queues * buffer_limit_bytes);
}

} // namespace exsim
