// Where a query's time goes, along its critical path. Every simulated thread carries a Path: the
// seconds, by category, of the chain of work and waits that led to where the thread is now, so
// that its total is always the time since the query started. CPU work adds to its class; a wait
// that ends because of a message (a batch, a response) takes the message's Path, which is its
// sender's Path when sent plus the time the message spent travelling, by category. The query's
// breakdown is the Path of its root fragment's thread when the query ends: it sums to runtime_s.
//   exsim::Path p; p.add(exsim::PathPart::cpu_scan, 0.25);
//   double total = p.total();
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>

namespace exsim {

enum class PathPart : std::size_t {
  startup,          // planning, admission, codegen
  cpu_scan,         // per row read by a scan
  cpu_join_build,   // hash table builds
  cpu_join_probe,   // probing
  cpu_aggregate,    // aggregations
  cpu_sort,         // sorts and top-n
  cpu_analytic,     // analytic functions
  cpu_other,        // other operators (select, union, limit, an exchange-only producer or consumer)
  cpu_exchange_send, // the sender's hashing, copying, serialization and compression
  cpu_deserialize,  // the receiver's deserialization, including waits for a service thread
  cpu_contention,   // CPU work stretched by other work sharing the cores
  rtt,              // RPC latency: the route's (request and response), the hand-off to a service thread
  bandwidth,        // payload transfer and waits behind other transfers on a connection
  backpressure,     // RPCs deferred by a full receiver
  join_build_wait,  // a probe waiting for its join build, beyond the build's own path (which it takes)
  runtime_filter_wait, // a scan waiting for its runtime filters (up to runtime_filter_wait_time_ms)
  count
};
constexpr std::size_t kPathParts = static_cast<std::size_t>(PathPart::count);

// A part as the results and the tools name it: its key in the results' `breakdown` object
// (seconds), a short label for tables and charts, the group that tables summing parts show it
// under, and what it counts.
struct PathPartInfo {
  PathPart part;
  const char* key;
  const char* label;
  const char* group;
  const char* meaning;
  bool exchange = false; // a part of the exchanges', which K, the buffer size and compression act on
};
// Every part, in the order of the enum.
const std::array<PathPartInfo, kPathParts>& path_parts();
const char* path_part_key(PathPart p);

class Path {
public:
  void add(PathPart p, double seconds) { s_[static_cast<std::size_t>(p)] += seconds; }
  double get(PathPart p) const { return s_[static_cast<std::size_t>(p)]; }
  double total() const {
    double t = 0;
    for (double v : s_)
      t += v;
    return t;
  }

  bool operator==(const Path& o) const { return s_ == o.s_; }

private:
  std::array<double, kPathParts> s_{};
};

// One copy of a path that many holders keep while it does not change: the RPCs a thread starts
// between two steps of its own (a sender's end of stream starts one on every channel) share it.
// Copies are counted; a copy no holder keeps is recycled for the next one, so sharing allocates
// nothing once a run has held its most at once (a simulation runs on one thread).
class SharedPath {
public:
  SharedPath() = default;
  explicit SharedPath(const Path& p);
  SharedPath(const SharedPath& o) : n_(o.n_) {
    if (n_) ++n_->holders;
  }
  SharedPath(SharedPath&& o) noexcept : n_(o.n_) { o.n_ = nullptr; }
  SharedPath& operator=(const SharedPath& o) {
    if (o.n_) ++o.n_->holders;
    release();
    n_ = o.n_;
    return *this;
  }
  SharedPath& operator=(SharedPath&& o) noexcept {
    if (this != &o) {
      release();
      n_ = o.n_;
      o.n_ = nullptr;
    }
    return *this;
  }
  ~SharedPath() { release(); }

  explicit operator bool() const { return n_ != nullptr; }
  const Path& operator*() const { return n_->path; }
  void reset() {
    release();
    n_ = nullptr;
  }

private:
  struct Node {
    Path path;
    uint32_t holders = 1;
    Node* next_free = nullptr;
  };
  void release();
  static Node* free_; // copies no holder keeps, for the next ones (never freed: at most a run's peak)
  Node* n_ = nullptr;
};

// `last` when it holds `p`, else a new copy of `p`, which becomes `last`.
inline const SharedPath& share(SharedPath& last, const Path& p) {
  if (!last || !(*last == p)) last = SharedPath(p);
  return last;
}

} // namespace exsim
