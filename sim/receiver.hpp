// The receiver instance (KrpcDataStreamRecvr and the ExchangeNode above it): admits or defers
// arriving batches, deserializes and answers them, and drains its queues at the consumer's rate,
// answering deferred RPCs as room frees up. It only reacts (to a delivered request, to its CPU
// work finishing, to close or cancel) and never waits, so it is not an actor: each event is
// handled in the context that delivers it.
#pragma once

#include "sim/exchange.hpp"

#include <memory>

namespace exsim {

// Receiver instance `index` of exchange `x`, started now.
std::unique_ptr<ReceiverEndpoint> start_receiver(ExchangeRun& x, int index);

} // namespace exsim
