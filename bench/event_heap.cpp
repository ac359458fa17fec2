// The physical limit of a discrete-event simulator on this machine, for scripts/bench.sh: a bare
// binary heap of events (time, order, handler) that pops the earliest, calls its handler and
// pushes the next, nothing else. Given the events a run of exsim took per RPC (`--timing`), it
// prints how many RPCs per wall second the heap alone would reach; exsim's rate divided by it is
// the fraction of the limit the simulator reaches. Not a test: it only measures.
//   exsim_event_heap EVENTS_PER_RPC RPCS [PENDING]
// PENDING events stay in the heap (default 25, one per channel of a 5x5 exchange at K=1); each
// handler schedules the next event at a pseudo-random delay below 390 us, so the heap's order
// is not predictable.
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <vector>

namespace {

struct Event {
  double t;
  uint64_t seq;
  void (*fn)(void*, uint64_t);
  void* self;
  uint64_t arg;
};
struct Later {
  bool operator()(const Event& a, const Event& b) const { return a.t != b.t ? a.t > b.t : a.seq > b.seq; }
};

struct Bench {
  std::vector<Event> heap;
  double now = 0;
  uint64_t seq = 0;
  uint64_t rng = 0x9e3779b97f4a7c15ULL;
  uint64_t handled = 0;

  double delay() { // xorshift64: below 390 us, never 0
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return 1e-9 + static_cast<double>(rng >> 11) * (390e-6 / 9007199254740992.0);
  }
  void push(double t) {
    heap.push_back({t, seq++, &Bench::handle, this, 0});
    std::push_heap(heap.begin(), heap.end(), Later{});
  }
  static void handle(void* self, uint64_t) {
    auto* b = static_cast<Bench*>(self);
    ++b->handled;
    b->push(b->now + b->delay());
  }
};

} // namespace

int main(int argc, char** argv) {
  if (argc < 3) {
    std::fprintf(stderr, "usage: exsim_event_heap EVENTS_PER_RPC RPCS [PENDING]\n");
    return 2;
  }
  const double per_rpc = std::atof(argv[1]);
  const double rpcs = std::atof(argv[2]);
  const int pending = argc > 3 ? std::atoi(argv[3]) : 25;
  if (!(per_rpc > 0) || !(rpcs > 0) || pending < 1) {
    std::fprintf(stderr, "exsim_event_heap: EVENTS_PER_RPC and RPCS must be positive, PENDING at least 1\n");
    return 2;
  }
  const auto events = static_cast<uint64_t>(per_rpc * rpcs);
  Bench b;
  b.heap.reserve(static_cast<size_t>(pending) + 1);
  for (int i = 0; i < pending; ++i)
    b.push(b.delay());
  const auto t0 = std::chrono::steady_clock::now();
  while (b.handled < events) {
    std::pop_heap(b.heap.begin(), b.heap.end(), Later{});
    const Event e = b.heap.back();
    b.heap.pop_back();
    b.now = e.t;
    e.fn(e.self, e.arg);
  }
  const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  std::printf("{\"events\": %llu, \"wall_s\": %.6f, \"events_per_wall_s\": %.0f, \"rpcs_per_wall_s\": %.0f, "
              "\"now_s\": %.6f}\n",
              static_cast<unsigned long long>(events), wall, static_cast<double>(events) / wall, rpcs / wall,
              b.now);
  return 0;
}
