// Batch sizing arithmetic, no SimGrid.
#include "models/exchange/batch.hpp"

#include <catch2/catch.hpp>

using namespace exsim;

TEST_CASE("collector capacity is buffer / fixed row size, at least one row", "[unit][batch]") {
  BatchShape s{64, 100, 1, 0.5};
  CHECK(collector_capacity_rows(16384, s) == 256); // variable bytes are not counted
  CHECK(collector_capacity_rows(131072, s) == 2048);
  BatchShape wide{100000, 0, 1, 0.5};
  CHECK(collector_capacity_rows(16384, wide) == 1);
}

TEST_CASE("collector capacity is capped by the 8 MB tuple-data flush", "[unit][batch]") {
  BatchShape s{8, 1000, 1, 0.5};
  // 1 GiB buffer / 8 B = 134M rows, but 8 MiB / 1008 B per row = 8322 rows.
  CHECK(collector_capacity_rows(1LL << 30, s) == (8LL * 1024 * 1024) / 1008);
}

TEST_CASE("bytes on the wire are compressed tuple data plus a 4-byte offset per tuple", "[unit][batch]") {
  BatchShape s{64, 16, 2, 0.25};
  CHECK(uncompressed_bytes(100, s) == 8000);
  CHECK(wire_bytes(100, s, true) == 2000 + 100 * 2 * 4);
  CHECK(wire_bytes(100, s, false) == 8000 + 100 * 2 * 4);
  // Accounting size: uncompressed + rows x tuples x 8.
  CHECK(accounting_bytes(100, s) == 8000 + 100 * 2 * 8);
}

TEST_CASE("compression is kept only if smaller", "[unit][batch]") {
  BatchShape s{64, 0, 1, 1.0};
  CHECK(tuple_data_bytes_on_wire(10, s, true) == 640);
}
