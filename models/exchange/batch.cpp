#include "models/exchange/batch.hpp"

#include "models/core/round.hpp"
#include <algorithm>
#include <cmath>

namespace exsim {

int64_t collector_capacity_rows(int64_t buffer_bytes, const BatchShape& shape) {
  const int64_t fixed = std::max<int64_t>(1, shape.fixed_row_bytes);
  const int64_t by_buffer = std::max<int64_t>(1, buffer_bytes / fixed);
  const int64_t by_flush =
      std::max<int64_t>(1, kCollectorMaxTupleBytes / std::max<int64_t>(1, shape.row_bytes()));
  return std::min(by_buffer, by_flush);
}

int64_t uncompressed_bytes(int64_t rows, const BatchShape& shape) {
  return rows * shape.row_bytes();
}

int64_t tuple_data_bytes_on_wire(int64_t rows, const BatchShape& shape, bool compressed) {
  const int64_t raw = uncompressed_bytes(rows, shape);
  if (!compressed) return raw;
  const auto packed = round_to_int64(static_cast<double>(raw) * shape.compression_ratio);
  return std::min(raw, packed);
}

int64_t wire_bytes(int64_t rows, const BatchShape& shape, bool compressed) {
  return tuple_data_bytes_on_wire(rows, shape, compressed) + kTupleOffsetBytes * rows * shape.tuples_per_row;
}

int64_t accounting_bytes(int64_t rows, const BatchShape& shape) {
  return uncompressed_bytes(rows, shape) + rows * shape.tuples_per_row * kTuplePointerBytes;
}

} // namespace exsim
