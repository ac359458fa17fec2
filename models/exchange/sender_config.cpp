#include "models/exchange/sender_config.hpp"

#include "models/exchange/memory.hpp"

namespace exsim {

namespace {

bool uses_configured_k(Partitioning p, bool merging) {
  return !merging && traits(p).configured_k;
}

std::string kept_k_reason(Partitioning p, bool merging) {
  if (merging)
    return "merging exchanges keep K=1: a sender's batches must reach the merging receiver in order";
  return to_string(p) +
         " senders keep K=1: the configured K applies to HASH_PARTITIONED and RANDOM senders only (as in the "
         "measured K=2 prototype); an exchange may set K in its own flags as a what-if";
}

} // namespace

SenderConfig sender_config(const SenderInputs& in) {
  SenderConfig c;
  const Flags& f = in.flags;
  c.k_configured = f.rpcs_in_flight_per_channel;
  const bool k_applies = in.k_set_by_exchange || uses_configured_k(in.partitioning, in.merging);
  c.k = k_applies ? f.rpcs_in_flight_per_channel : 1;
  // The reason is given where the flags asked for more than the sender runs with: a K, or a policy.
  if (c.k != c.k_configured || (!k_applies && f.rpcs_in_flight_policy != WindowPolicyKind::fixed))
    c.k_reason = kept_k_reason(in.partitioning, in.merging);
  c.window = {.kind = k_applies ? f.rpcs_in_flight_policy : WindowPolicyKind::fixed, .initial = c.k, .max = c.k};
  if (c.window.adaptive()) c.window.max = f.rpcs_in_flight_max;
  c.mode = send_mode(in.partitioning, in.receivers);
  c.collector_rows = collector_capacity_rows(f.data_stream_sender_buffer_size, in.shape);
  // A full collector, or a whole input batch.
  const int64_t planned_rows = c.mode == SendMode::collectors ? c.collector_rows : f.batch_size;
  c.planned_batch_bytes = uncompressed_bytes(planned_rows, in.shape);
  // A channel that may hold K_max RPCs budgets K_max + 1 batches, as a fixed K budgets K + 1.
  c.memory_estimate_bytes =
      sender_memory_estimate(in.partitioning, in.receivers, c.window.capacity(), c.planned_batch_bytes);
  return c;
}

} // namespace exsim
