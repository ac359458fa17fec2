// A host's cores shared by processor sharing, each piece capped at one core; no SimGrid.
#include "models/cpu/shared_cpu.hpp"

#include <catch2/catch.hpp>

#include <cmath>
#include <stdexcept>

using namespace exsim;

namespace {

// Drives the model to idle and returns each piece's finish time, indexed by id.
std::vector<double> run_to_idle(SharedCpu& cpu, size_t pieces) {
  std::vector<double> end(pieces, -1);
  std::vector<uint64_t> done;
  while (cpu.running() > 0) {
    const double t = cpu.next_completion();
    done.clear();
    cpu.complete_next(t, done);
    REQUIRE(!done.empty());
    for (uint64_t id : done)
      end.at(id) = t;
  }
  return end;
}

} // namespace

TEST_CASE("shared CPU: up to one piece per core, each runs at a full core", "[unit][cpu]") {
  SharedCpu cpu(4);
  for (double w : {1e-3, 2e-3, 3e-3, 4e-3})
    cpu.start(0, w);
  const auto end = run_to_idle(cpu, 4);
  CHECK(end[0] == Approx(1e-3));
  CHECK(end[1] == Approx(2e-3));
  CHECK(end[2] == Approx(3e-3));
  CHECK(end[3] == Approx(4e-3));
}

TEST_CASE("shared CPU: n pieces on c < n cores each get c/n of a core", "[unit][cpu]") {
  // 6 equal pieces of 1 ms on 2 cores: each at 1/3 of a core, all done at 3 ms.
  SharedCpu cpu(2);
  for (int i = 0; i < 6; ++i)
    cpu.start(0, 1e-3);
  CHECK(cpu.next_completion() == Approx(3e-3));
  std::vector<uint64_t> done;
  cpu.complete_next(cpu.next_completion(), done);
  CHECK(done == std::vector<uint64_t>{0, 1, 2, 3, 4, 5}); // equal pieces finish together, in start order
  CHECK(cpu.running() == 0);
  CHECK(std::isinf(cpu.next_completion()));
}

TEST_CASE("shared CPU: the rate changes when pieces come and go", "[unit][cpu]") {
  // One core. A (2 ms) alone until 1 ms (1 ms left); B (0.5 ms) arrives: each at 1/2 a core.
  // B finishes after 1 ms (at 2 ms), when A has 0.5 ms left, alone again: A ends at 2.5 ms.
  SharedCpu cpu(1);
  cpu.start(0, 2e-3);
  CHECK(cpu.next_completion() == Approx(2e-3));
  cpu.start(1e-3, 0.5e-3);
  const auto end = run_to_idle(cpu, 2);
  CHECK(end[1] == Approx(2e-3));
  CHECK(end[0] == Approx(2.5e-3));
}

TEST_CASE("shared CPU: a cancelled piece frees its share and never finishes", "[unit][cpu]") {
  // One core, A and B of 1 ms at 0, each at 1/2. B cancelled at 1 ms (A has done 0.5 ms):
  // A alone ends at 1.5 ms.
  SharedCpu cpu(1);
  const uint64_t a = cpu.start(0, 1e-3);
  const uint64_t b = cpu.start(0, 1e-3);
  CHECK(cpu.cancel(1e-3, b));
  CHECK_FALSE(cpu.cancel(1e-3, b)); // already withdrawn
  CHECK(cpu.running() == 1);
  const auto end = run_to_idle(cpu, 2);
  CHECK(end[a] == Approx(1.5e-3));
  CHECK(end[b] == -1);
  CHECK_FALSE(cpu.cancel(2e-3, a)); // already finished
}

TEST_CASE("shared CPU: bad use is refused", "[unit][cpu]") {
  CHECK_THROWS_AS(SharedCpu(0), std::invalid_argument);
  SharedCpu cpu(2);
  CHECK_THROWS_AS(cpu.start(0, -1), std::invalid_argument);
  cpu.start(1, 1);
  CHECK_THROWS_AS(cpu.start(0.5, 1), std::logic_error); // time went backwards
}

TEST_CASE("shared CPU: hardware threads add the second thread's gain, not a whole core", "[unit][cpu]") {
  // 8 cores x 2 threads, a second busy thread adds 26% to its core. 16 equal pieces of 1 ms: the
  // host does 8 x 1.26 pieces' worth per ms, so all end at 16 / (8 x 1.26) ms. 8 pieces run a core
  // each (1 ms); 12 pieces: 8 + 4 x 0.26 = 9.04 cores' worth, each at 9.04/12 of a thread.
  const double g = 0.26;
  for (const auto& [n, expected] : {std::pair<int, double>{16, 16e-3 / (8 * (1 + g))}, {8, 1e-3},
                                    {12, 12e-3 / (8 + 4 * g)}, {40, 40e-3 / (8 * (1 + g))}}) {
    SharedCpu cpu(8, 2, g);
    for (int i = 0; i < n; ++i)
      cpu.start(0, 1e-3);
    std::printf("%-58s expected %.6f, simulated %.6f\n",
                ("shared CPU 8x2, " + std::to_string(n) + " busy threads of 1 ms").c_str(), expected,
                cpu.next_completion());
    CHECK(cpu.next_completion() == Approx(expected).epsilon(1e-12));
  }
  CHECK_THROWS_AS(SharedCpu(8, 2, 1.5), std::invalid_argument);
}
