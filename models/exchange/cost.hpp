// CPU costs of the exchange, in nanoseconds of one hardware thread running alone on a core.
//   exsim::CpuCosts c{}; c.hash_ns_per_row = 5;
//   double ns = exsim::sender_row_ns(c, Partitioning::hash_partitioned, 1) * rows;
#pragma once

#include "models/exchange/partitioning.hpp"

#include <cstdint>

namespace exsim {

// A scenario's exchanges set each member from its row of the parameter table (with its default).
struct CpuCosts {
  double hash_ns_per_row;         // partition expression hashing
  double copy_ns_per_row;         // deep copy into a channel collector
  double compress_ns_per_byte;    // LZ4 compression, per uncompressed byte
  double serialize_ns_per_byte;   // serialization copy, per uncompressed byte
  double deserialize_ns_per_byte; // receiver: LZ4 decompression + copy, per uncompressed byte
};

// Per input row on the sender before any serialization: for collector-based kinds, hashing it
// and copying it into `copies` collectors.
double sender_row_ns(const CpuCosts& c, Partitioning p, int copies);

// Serializing one outbound batch; compression is charged only when the batch is compressed
// (compression on and the receiver in another process).
double serialize_ns(const CpuCosts& c, int64_t uncompressed_bytes, bool compressed);

// Deserializing one received batch on the receiver; decompression only if it was compressed.
double deserialize_ns(const CpuCosts& c, int64_t uncompressed_bytes, bool compressed);

} // namespace exsim
