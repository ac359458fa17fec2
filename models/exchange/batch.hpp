// Row batch sizing: how many rows a sender's collector holds, and how many bytes a batch
// occupies uncompressed, on the wire, and in the receiver's queue accounting.
//   exsim::BatchShape shape{64, 16, 1, 0.5};
//   int64_t rows = exsim::collector_capacity_rows(16384, shape);   // 256
//   int64_t wire = exsim::wire_bytes(rows, shape, /*compressed=*/true);
#pragma once

#include <cstdint>

namespace exsim {

// A collector also flushes when its tuple data reaches this many bytes.
constexpr int64_t kCollectorMaxTupleBytes = 8LL * 1024 * 1024;
// Bytes per tuple of the tuple offsets array sent beside the tuple data (one int32 per tuple of
// every row: OutboundRowBatch::tuple_offsets_).
constexpr int64_t kTupleOffsetBytes = 4;
// Bytes per tuple pointer the receiver adds when accounting a queued batch.
constexpr int64_t kTuplePointerBytes = 8;

// A scenario's exchanges set each member from its row of the parameter table (with its default).
struct BatchShape {
  int64_t fixed_row_bytes;  // fixed-length tuple bytes per row
  int64_t var_row_bytes;    // variable-length bytes per row (strings)
  int64_t tuples_per_row;   // tuple pointers per row
  double compression_ratio; // compressed / uncompressed tuple data, in (0, 1]

  int64_t row_bytes() const { return fixed_row_bytes + var_row_bytes; }
};

// Rows a hash/Kudu/directed collector holds before it is sent: the buffer size divided by the
// fixed row size (variable-length data is not counted), at least one, and no more than the
// 8 MB tuple-data flush allows.
int64_t collector_capacity_rows(int64_t buffer_bytes, const BatchShape& shape);

// Uncompressed tuple data of `rows` rows.
int64_t uncompressed_bytes(int64_t rows, const BatchShape& shape);

// Tuple data actually sent: LZ4 output when compressing (kept only if smaller), else raw.
int64_t tuple_data_bytes_on_wire(int64_t rows, const BatchShape& shape, bool compressed);

// Payload of one TransmitData RPC: tuple data on the wire plus a 4-byte offset per tuple per row.
int64_t wire_bytes(int64_t rows, const BatchShape& shape, bool compressed);

// Size the receiver charges against its buffer limit: uncompressed data plus one pointer per tuple.
int64_t accounting_bytes(int64_t rows, const BatchShape& shape);

} // namespace exsim
