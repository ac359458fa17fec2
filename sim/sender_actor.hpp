// The sender instance (KrpcDataStreamSender): a single thread that produces input batches,
// routes rows to channels by the exchange's partitioning, serializes, and sends TransmitData
// RPCs on K-slot channels, blocking when the channel it must use has K RPCs in flight.
#pragma once

namespace exsim {

class ExchangeRun;

// Body of the SimGrid actor of sender instance `index` of exchange `x`.
void run_sender(ExchangeRun& x, int index);

} // namespace exsim
