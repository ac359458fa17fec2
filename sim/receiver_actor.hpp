// The receiver instance (KrpcDataStreamRecvr and the ExchangeNode above it): admits or defers
// arriving batches, deserializes and answers them, and drains its queues at the consumer's rate,
// answering deferred RPCs as room frees up.
#pragma once

namespace exsim {

class ExchangeRun;

// Body of the SimGrid actor of receiver instance `index` of exchange `x`.
void run_receiver(ExchangeRun& x, int index);

} // namespace exsim
