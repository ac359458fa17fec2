// Bandwidth sharing on exsim's network: every executor has a NIC (an uplink and a downlink of the
// same bandwidth) and a loopback link; a transfer between two executors crosses the sender's
// uplink and the receiver's downlink, a transfer to the same executor its loopback link. Shares
// are max-min fair, computed the way SimGrid's CM02 model and its lmm solver compute them (with
// exsim's settings: no latency on links, no cross traffic, TCP-gamma 0), including its two
// precision thresholds, so that finish times agree with SimGrid's to rounding. Pure bookkeeping,
// like models/cpu/shared_cpu: the engine glue decides when time passes.
//   exsim::NetworkShare net(/*hosts=*/40, /*nic=*/1.5625e9, /*loopback=*/12.5e9);
//   uint64_t id = net.start(now, 3, 7, 16384);       // bytes from executor 3 to executor 7
//   double t = net.next_completion();                 // when the earliest transfer ends
//   std::vector<uint64_t> done; net.complete_next(t, done);
//
// What SimGrid computes (src/kernel/lmm/maxmin.cpp, src/surf/network_cm02.cpp, 3.32):
// - Progressive filling over the links' constraints: repeatedly the link with the least
//   remaining capacity per unfixed flow saturates and its unfixed flows are fixed at that share;
//   a flow also stops at its bound (the smallest bandwidth on its route), which on this topology
//   never binds. A link whose remaining capacity falls below maxmin/precision (1e-5) times its
//   capacity counts as full.
// - A transfer's remaining bytes are updated whenever its share is recomputed, and it is due at
//   the time its remaining bytes run out at the current share. At every event (of any kind),
//   every transfer due within surf/precision (1e-9 s) of the current time ends then.
//
// How it is computed here, so that the work per event does not grow with the number of hosts:
// - Changes at one instant are solved together, and not at all when they leave the number of
//   flows on every route (host pair) as it was: the allocation depends on nothing else, so a
//   transfer that replaces one that just ended on its route (a busy connection's next request)
//   takes the share the other had. In the scaling benchmark that is 94% of the batches.
// - Levels, not flows. In a max-min fair allocation every link has a level: the share of the
//   flows it is the bottleneck of (+infinity when it is not full). A flow's share is the lowest
//   level on its route. A change (transfers starting or ending, batched per instant) can only
//   move the levels of the links it touched and, through the flows they carry, of their
//   neighbours. The solver re-runs progressive filling on a region of links, starting with the
//   links whose flows changed, the levels of the links outside the region acting as caps on the
//   flows that cross them. It then checks each outside link that carries a flow whose share
//   changed: if that link's own water-filling level (from the levels of its flows' other links)
//   is no longer its stored level, the link joins the region and the region is solved again.
//   When the checks pass, every link satisfies its level equation, which characterises the
//   max-min fair allocation (each flow has a full link on which no flow gets more).
// - Groups, not flows, carry the time. Flows with the same share sit in a group with one service
//   clock (bytes each of its flows has received since the clock started) and a heap of their
//   finish clocks; a group's next completion sits in one heap of groups. A share change that
//   applies to a whole group (for example a receiver's downlink losing one of n incoming flows)
//   costs O(log groups), whatever the group's size. A flow whose share changes alone moves to
//   the group of its new bottleneck link: O(log) per moved flow.
// - Whole solves are remembered. Solved whole, the shares depend on nothing but how many flows
//   take each route: the links saturate in the order of their remaining capacity per flow, and a
//   link's flows are all fixed at one value, so the order in which flows were added changes no
//   rounding. The result of a whole solve (each link's level, each route's bottleneck link, whose
//   level is the route's share) is kept under that configuration, up to a memory budget
//   (remember_bytes), and reused when it comes back. On the TPC-DS workload's five executors, 83%
//   (q67a) to 99.9% (q72) of a query's whole solves are answered so.
// Cost per event: the region's flows (the links it touched times the flows on each: the number
// of transfers a host has in flight, at most hosts per NIC with one connection per host pair),
// plus O(log) per group whose share changed and per flow that changed group. When the region
// grows past a quarter of the busy links it is solved whole: SimGrid's own cost, O(flows), but
// without its per-flow bookkeeping. That is the worst case, and it is not rare on dense traffic:
// a change on one NIC can move the levels of most others (in an all-to-all hash exchange on 40
// hosts one batch in a hundred does, changing the shares of 40% of the flows; one in forty on
// 150 hosts), and the flows whose shares change have to be visited.
//
// The approximation (NetworkPrecision::slack > 0; the network model "approx"). What makes dense
// traffic costly is checking the neighbours: a change on one NIC moves the shares of its n flows
// a little (by about 1/n each), and every link those flows cross must be checked, O(n) each,
// although its own level moves by about 1/n^2. With a slack s, a changed flow adds how far its
// share moved to a drift counter on each of its links outside the region; a link is checked
// (and, if its level no longer holds, solved) only when its drift exceeds s times its capacity,
// then its drift restarts at 0, as it does when the link is solved. A link's water level moves
// by at most the sum of its flows' share changes over the flows it is the bottleneck of, so
// between checks the flows on a link receive in total within s of its capacity of what max-min
// on the links' current levels would give them. Errors do not compound beyond that: every link is
// re-solved exactly once its drift passes s. The error on run times is measured, not bounded:
// docs/speed.md, "The approximate network model".
#pragma once

#include <bit>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace exsim {

// SimGrid 3.32's defaults (maxmin/precision and surf/precision), and how far the shares may be
// from max-min fair (0: exact).
struct NetworkPrecision {
  double share = 1e-5; // a link with less than share * capacity left is full (bytes/s, relative)
  double time = 1e-9;  // transfers due within this many seconds of an event end with it
  // Bounded re-solve: a link outside the changed region is checked only once the shares of the
  // flows it carries have moved, in sum since its last check, by more than this fraction of its
  // capacity. Its level may so lag the max-min one by about that fraction (see the header).
  double slack = 0;
  // Memory for remembered whole solves (0: none); the results are the same either way.
  size_t remember_bytes = size_t{8} << 20;
};

class NetworkShare {
public:
  // `hosts` executors; NIC bandwidth each way and loopback bandwidth in bytes per second.
  NetworkShare(int hosts, double nic_bytes_per_s, double loopback_bytes_per_s, NetworkPrecision p = {});

  // Starts moving `bytes` from executor `src` to `dst` at time `now` (never before the last
  // event). Changes at one instant are solved together, at the next query or later event.
  uint64_t start(double now, int src, int dst, double bytes);
  // Withdraws an unfinished transfer at time `now`; false when it is not running.
  bool cancel(double now, uint64_t id);
  // The time the earliest running transfer ends at the current shares; +infinity when idle.
  double next_completion();
  // Called at the time of an event: ends every transfer due within the time precision of `now`
  // (SimGrid's rule), appending their ids to `done` in start order.
  void complete_next(double now, std::vector<uint64_t>& done);

  // The share of a running transfer (bytes per second); for tests and diagnostics.
  double rate(uint64_t id);
  size_t running() const { return running_; }
  int hosts() const { return hosts_; }
  // Ids are increasing in start order; index(id) is a small dense number while the transfer
  // runs (reused afterwards), for callers that keep per-transfer data in a vector.
  static size_t index(uint64_t id) { return static_cast<size_t>(id & kSlotMask); }

  // Work counters, for benchmarks and for explaining the cost.
  struct Stats {
    uint64_t solves = 0;        // batches of changes solved
    uint64_t region_links = 0;  // links re-solved, summed over solves
    uint64_t region_flows = 0;  // flows visited by the region solves
    uint64_t checked_links = 0; // outside links checked
    uint64_t checked_flows = 0; // flows visited by those checks
    uint64_t whole_solves = 0;  // solves that fell back to every busy link
    uint64_t group_changes = 0; // whole groups whose share changed
    uint64_t flow_moves = 0;    // flows that changed group (new flows included)
    uint64_t unchanged = 0;     // solves skipped: the changes cancelled out route by route
    uint64_t deferred = 0;      // link checks left to the drift counter (slack > 0)
    uint64_t remembered = 0;    // whole solves answered from a configuration seen before
  };
  const Stats& stats() const { return stats_; }

private:
  static constexpr uint64_t kSlotBits = 24;
  static constexpr uint64_t kSlotMask = (uint64_t{1} << kSlotBits) - 1;

  struct Flow {
    uint64_t id = 0;
    int link[2] = {-1, -1}; // uplink and downlink, or the loopback link and -1
    int pos[2] = {-1, -1};  // index in each link's flow list
    double bound = 0;       // the smallest bandwidth on the route (SimGrid's per-flow bound)
    int group = -1;         // -1 until the first solve after it started
    int heap_pos = -1;      // in its group's heap
    double finish = 0;      // group service clock at which it is done; the bytes while group < 0
    bool live = false;
    // Solve scratch.
    uint32_t stamp = 0;
    bool fixed = false;
    double cap = 0;
    int cap_link = -1;
    double new_rate = 0;
    int via = -1; // the link that set new_rate
  };
  struct Link {
    double capacity = 0;
    std::vector<int> flows;
    double level;   // share of the flows it is the bottleneck of; +inf when not full
    int group = -1; // group of the flows this link last became the bottleneck of
    bool dirty = false;
    // Solve scratch.
    uint32_t stamp = 0;  // in the current region
    uint32_t cstamp = 0; // checked in the current pass
    double drift = 0;    // share moved on its flows since it was last solved or checked (slack > 0)
    double remaining = 0;
    int usage = 0;
    bool active = false;
    double new_level = 0;
  };
  // The bit pattern of a share, a ratio or a cap, which are positive: it orders as the value does,
  // and integer compares cost less than floating-point ones in the solver's sort and heap.
  static uint64_t order_of(double positive) { return std::bit_cast<uint64_t>(positive); }
  struct RatioEntry { // a link's remaining capacity per unfixed flow, in the solve's heap
    double ratio;
    int link;
    bool operator>(const RatioEntry& o) const {
      const uint64_t x = order_of(ratio), y = order_of(o.ratio);
      return x > y || (x == y && link > o.link);
    }
  };
  struct Group {
    double rate = 0;
    double clock = 0; // service clock at time t
    double t = 0;
    std::vector<int> heap; // flow slots, min-heap on finish
    int gpos = -1;         // position in the heap of groups
    int owner = -1;        // link whose `group` this is (while it is)
    double due = 0;        // cached next completion
    // Solve scratch.
    int changed = 0;
    double target = 0;
    bool uniform = true;
    uint32_t stamp = 0;
  };

  void settle(double now);
  void solve();
  bool place_new_flows();
  int route_of(const Flow& f) const;
  void count_route(const Flow& f, int delta);
  template <class Visit> void for_region_flows(const std::vector<int>& region, Visit visit);
  void region_solve(const std::vector<int>& region);
  void whole_solve(const std::vector<int>& region);
  bool recall(const std::vector<int>& region);
  void remember();
  double water_level(int link);
  void collect_changed(bool outside);
  void commit(const std::vector<int>& region);
  void fix(int f, double value, int via);
  void take_share(int link, double value);
  double level_seen(int link) const;
  void mark_dirty(int link);
  void add_to_link(int f, int which, int link);
  void remove_from_link(int f, int which);
  void release_slot(int f);

  // Groups and heaps.
  int new_group(int owner, double rate, double now);
  void free_group(int g);
  double clock_at(const Group& g, double now) const { return g.clock + g.rate * (now - g.t); }
  void advance(Group& g, double now);
  void join(int f, int g, double remaining, double now);
  void leave(int f);
  void refresh_due(int g);
  void flow_heap_up(Group& g, int i);
  void flow_heap_down(Group& g, int i);
  void group_heap_up(int i);
  void group_heap_down(int i);
  void group_heap_fix(int g);
  void group_heap_remove(int g);

  int hosts_;
  NetworkPrecision prec_;
  std::vector<Link> links_; // up[h] = h, down[h] = hosts + h, loopback[h] = 2 hosts + h
  std::vector<Flow> flows_;
  std::vector<int> free_flows_;
  std::vector<Group> groups_;
  std::vector<int> free_groups_;
  std::vector<int> group_heap_;
  std::vector<int> dirty_;
  double dirty_time_ = 0;
  // Net change of flows per route (src * hosts + dst) since the last solve: when every change
  // cancels out (a transfer ends and the next one on its route starts at the same instant),
  // the shares cannot have changed.
  std::vector<int> route_delta_;
  // Flows per route now, and a hash of that configuration (updated as routes gain and lose flows).
  std::vector<uint16_t> route_count_;
  uint64_t config_hash_ = 0;
  // Remembered whole solves, by configuration: per entry the flows per route and each route's
  // bottleneck link, and each link's level (a route's share is its bottleneck's level).
  struct Memo {
    size_t max_entries = 0;
    std::vector<std::pair<uint32_t, uint32_t>> index; // open addressing: (hash's high half, entry + 1)
    std::vector<uint16_t> routes;                     // per entry: counts, then bottleneck + 1 (0: none)
    std::vector<double> levels;                       // per entry: each link's level
    size_t entries = 0;
  } memo_;
  std::vector<int> routes_touched_;
  std::vector<std::pair<int, uint64_t>> new_flows_; // slot and id, since the last solve
  double time_ = 0;
  size_t running_ = 0;
  size_t busy_links_ = 0;
  uint64_t next_seq_ = 0;
  uint32_t stamp_ = 0;
  Stats stats_;
  // Solve scratch, kept to avoid allocating per event.
  std::vector<int> touched_;
  struct Cap { // a flow held below its region links' capacity by a link outside the region
    double cap;
    int flow;
    int link; // the outside link (its level is the cap), or -1: the flow's bound
  };
  std::vector<Cap> caps_;
  std::vector<RatioEntry> ratios_heap_;
  std::vector<double> level_caps_;
  std::vector<int> region_;
  std::vector<int> candidates_;
  std::vector<int> changed_;
};

} // namespace exsim
