#include "models/exchange/cost.hpp"

namespace exsim {

double sender_row_ns(const CpuCosts& c, Partitioning p, int copies) {
  if (traits(p).routes_rows)
    return c.hash_ns_per_row + c.copy_ns_per_row * copies;
  return 0;
}

double serialize_ns(const CpuCosts& c, int64_t uncompressed_bytes, bool compressed) {
  const double per_byte = c.serialize_ns_per_byte + (compressed ? c.compress_ns_per_byte : 0.0);
  return per_byte * static_cast<double>(uncompressed_bytes);
}

double deserialize_ns(const CpuCosts& c, int64_t uncompressed_bytes, bool compressed) {
  // Without compression the receiver still copies the data out of the RPC payload.
  const double per_byte = compressed ? c.deserialize_ns_per_byte : c.serialize_ns_per_byte;
  return per_byte * static_cast<double>(uncompressed_bytes);
}

} // namespace exsim
