// CPU costs of the exchange, in nanoseconds of one core. The engine charges them as SimGrid
// executions on the instance's host, where cores are shared with every other instance.
//   exsim::CpuCosts c; c.producer_ns_per_row = 50;
//   double ns = exsim::sender_row_ns(c, Partitioning::hash_partitioned) * rows;
#pragma once

#include "models/partitioner.hpp"

#include <cstdint>

namespace exsim {

struct CpuCosts {
  double producer_ns_per_row = 0;       // operators below the sender
  double hash_ns_per_row = 5;           // partition expression hashing
  double copy_ns_per_row = 10;          // deep copy into a channel collector
  double compress_ns_per_byte = 1.3;    // LZ4 compression, per uncompressed byte
  double serialize_ns_per_byte = 0.1;   // serialization copy, per uncompressed byte
  double deserialize_ns_per_byte = 0.3; // receiver: LZ4 decompression + copy, per uncompressed byte
  double consumer_ns_per_row = 0;       // operators above the receiver
};

// Per input row on the sender before any serialization: producing it, and for collector-based
// kinds hashing it and copying it into `copies` collectors.
double sender_row_ns(const CpuCosts& c, Partitioning p, int copies);

// Serializing one outbound batch; compression is charged only when the batch is compressed
// (compression on and the receiver in another process).
double serialize_ns(const CpuCosts& c, int64_t uncompressed_bytes, bool compressed);

// Deserializing one received batch on the receiver; decompression only if it was compressed.
double deserialize_ns(const CpuCosts& c, int64_t uncompressed_bytes, bool compressed);

// Consuming `rows` rows above the exchange node, scaled by a per-receiver slowdown.
double consume_ns(const CpuCosts& c, int64_t rows, double slowdown);

} // namespace exsim
