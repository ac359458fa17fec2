// Max-min fair sharing of NIC uplinks, downlinks and loopback links (models/network/network_share); no
// SimGrid. Each case states its analytic expectation; a randomised case checks the incremental
// solver against a plain global progressive filling after every event.
#include "models/network/network_share.hpp"

#include "models/network/network_model.hpp"

#include "models/core/rng.hpp"

#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <map>
#include <string>
#include <vector>

using namespace exsim;

namespace {

constexpr double B = 1.5625e9; // 12.5 Gbit/s in bytes per second
constexpr double L = 12.5e9;   // loopback, 100 Gbit/s
constexpr double S = 1e6;      // bytes

struct Run {
  std::map<uint64_t, double> end;
  std::vector<std::vector<uint64_t>> batches; // ids ended together, per event
};

// Drives the model to idle and returns each transfer's finish time.
Run run_to_idle(NetworkShare& net) {
  Run r;
  std::vector<uint64_t> done;
  while (net.running() > 0) {
    const double t = net.next_completion();
    REQUIRE(std::isfinite(t));
    done.clear();
    net.complete_next(t, done);
    REQUIRE(!done.empty());
    for (uint64_t id : done)
      r.end[id] = t;
    r.batches.push_back(done);
  }
  return r;
}

void show(const std::string& what, double expected, double simulated) {
  std::printf("%-58s expected %.12g, simulated %.12g\n", what.c_str(), expected, simulated);
}

void check_time(const std::string& what, double expected, double simulated) {
  show(what, expected, simulated);
  CHECK(simulated == Approx(expected).epsilon(1e-12));
}

} // namespace

TEST_CASE("network share: a transfer alone takes bytes / bandwidth", "[unit][network]") {
  NetworkShare net(2, B, L);
  const uint64_t id = net.start(0, 0, 1, S);
  CHECK(net.rate(id) == B);
  const Run r = run_to_idle(net);
  check_time("1 MB over 12.5 Gbit/s (s)", S / B, r.end.at(id));
}

TEST_CASE("network share: fan-in of n equal transfers shares the receiver's downlink", "[unit][network]") {
  for (int n : {2, 5, 39}) {
    NetworkShare net(n + 1, B, L);
    std::vector<uint64_t> ids;
    for (int s = 1; s <= n; ++s)
      ids.push_back(net.start(0, s, 0, S));
    CHECK(net.rate(ids[0]) == Approx(B / n));
    const Run r = run_to_idle(net);
    REQUIRE(r.batches.size() == 1); // all end together, in start order
    CHECK(r.batches[0] == ids);
    check_time("fan-in of " + std::to_string(n) + ": n S / B (s)", n * S / B, r.end.at(ids[0]));
  }
}

TEST_CASE("network share: fan-out of unequal transfers is processor sharing on the uplink",
          "[unit][network]") {
  // Sizes S, 2S, 3S from host 0 to hosts 1..3: all at B/3 until the first ends at 3S/B, then
  // two at B/2 for the second's remaining S (2S/B), then the last alone for its remaining S.
  NetworkShare net(4, B, L);
  const uint64_t a = net.start(0, 0, 1, S), b = net.start(0, 0, 2, 2 * S), c = net.start(0, 0, 3, 3 * S);
  const Run r = run_to_idle(net);
  check_time("fan-out: first (S) ends at 3S/B (s)", 3 * S / B, r.end.at(a));
  check_time("fan-out: second (2S) ends at 5S/B (s)", 5 * S / B, r.end.at(b));
  check_time("fan-out: third (3S) ends at 6S/B (s)", 6 * S / B, r.end.at(c));
}

TEST_CASE("network share: all-to-all among n hosts gives every flow B / (n - 1)", "[unit][network]") {
  for (int n : {2, 3, 8, 20}) {
    NetworkShare net(n, B, L);
    std::vector<uint64_t> ids;
    for (int s = 0; s < n; ++s)
      for (int d = 0; d < n; ++d)
        if (s != d) ids.push_back(net.start(0, s, d, S));
    for (uint64_t id : ids)
      CHECK(net.rate(id) == Approx(B / (n - 1)));
    const Run r = run_to_idle(net);
    check_time("all-to-all of " + std::to_string(n) + ": (n-1) S / B (s)", (n - 1) * S / B,
               r.end.at(ids.back()));
    CHECK(r.batches.size() == 1);
  }
}

TEST_CASE("network share: a flow held elsewhere leaves its share to the others (max-min)",
          "[unit][network]") {
  // Host 0 sends S, 2S, 3S to hosts 1, 2, 3 (its uplink: B/3 each); host 4 sends 10S to host 1.
  // Host 1's downlink carries 0->1 at B/3, so 4->1 gets the rest, 2B/3. At 3S/B 0->1 ends (4->1
  // has moved 2S): 0's two flows get B/2 each and 4->1 the whole downlink. 0->2 ends at 5S/B,
  // 0->3 at 6S/B, and 4->1 moves its last 8S at B: 3S/B + 8S/B = 11S/B.
  NetworkShare net(5, B, L);
  const uint64_t a = net.start(0, 0, 1, S), b = net.start(0, 0, 2, 2 * S), c = net.start(0, 0, 3, 3 * S);
  const uint64_t d = net.start(0, 4, 1, 10 * S);
  CHECK(net.rate(a) == Approx(B / 3));
  CHECK(net.rate(d) == Approx(2 * B / 3));
  const Run r = run_to_idle(net);
  check_time("0->1 (S at B/3) ends at 3S/B (s)", 3 * S / B, r.end.at(a));
  check_time("0->2 ends at 5S/B (s)", 5 * S / B, r.end.at(b));
  check_time("0->3 ends at 6S/B (s)", 6 * S / B, r.end.at(c));
  check_time("4->1 (2B/3, then B) ends at 11S/B (s)", 11 * S / B, r.end.at(d));
}

TEST_CASE("network share: staggered starts", "[unit][network]") {
  // A (0->1, S) starts at 0 and is alone until S/(2B), when B (2->1, S) starts: then B/2 each. A
  // has S/2 left and ends S/B later, at 1.5 S/B; B then has S/2 left, alone: it ends at 2 S/B.
  NetworkShare net(3, B, L);
  const uint64_t a = net.start(0, 0, 1, S);
  CHECK(net.next_completion() == Approx(S / B));
  const uint64_t b = net.start(S / (2 * B), 2, 1, S);
  const Run r = run_to_idle(net);
  check_time("A ends at 1.5 S/B (s)", 1.5 * S / B, r.end.at(a));
  check_time("B ends at 2 S/B (s)", 2 * S / B, r.end.at(b));
}

TEST_CASE("network share: loopback transfers share their host's loopback link only", "[unit][network]") {
  // Two transfers inside host 0 share its loopback link (L/2 each); a transfer from host 0 to
  // host 1 uses the NIC and is not slowed by them.
  NetworkShare net(2, B, L);
  const uint64_t a = net.start(0, 0, 0, S), b = net.start(0, 0, 0, 2 * S), c = net.start(0, 0, 1, S);
  CHECK(net.rate(a) == Approx(L / 2));
  CHECK(net.rate(c) == B);
  const Run r = run_to_idle(net);
  check_time("loopback S at L/2 ends at 2S/L (s)", 2 * S / L, r.end.at(a));
  check_time("loopback 2S ends at 3S/L (s)", 3 * S / L, r.end.at(b));
  check_time("remote S alone on the NIC ends at S/B (s)", S / B, r.end.at(c));
}

TEST_CASE("network share: transfers due within the time precision end together", "[unit][network]") {
  // Fan-in of two: the second is larger by bytes worth 0.4 ns at B/2 (it is due 0.4 ns after the
  // first): SimGrid ends both at the first one's time. Due 2 ns apart, they end apart, the second
  // alone on the downlink for its last bytes (1 ns at B).
  for (const double gap_s : {0.4e-9, 2e-9}) {
    NetworkShare net(3, B, L);
    const uint64_t a = net.start(0, 1, 0, S), b = net.start(0, 2, 0, S + gap_s * B / 2);
    const Run r = run_to_idle(net);
    const double first = 2 * S / B;
    check_time("first of two ends at 2S/B (s)", first, r.end.at(a));
    check_time(gap_s < 1e-9 ? "second, 0.4 ns later, ends with it (s)"
                            : "second, due 2 ns later, ends 1 ns after it (s)",
               gap_s < 1e-9 ? first : first + gap_s / 2, r.end.at(b));
  }
}

TEST_CASE("network share: cancel frees the share, zero bytes end at once", "[unit][network]") {
  NetworkShare net(3, B, L);
  const uint64_t a = net.start(0, 1, 0, S), b = net.start(0, 2, 0, S);
  // At S/(2B) each has S/4 done; b is withdrawn, a gets the whole downlink: 3S/4 at B.
  CHECK(net.cancel(S / (2 * B), b));
  CHECK_FALSE(net.cancel(S / (2 * B), b));
  const uint64_t z = net.start(S / (2 * B), 1, 2, 0);
  CHECK(net.next_completion() == S / (2 * B));
  std::vector<uint64_t> done;
  net.complete_next(S / (2 * B), done);
  CHECK(done == std::vector<uint64_t>{z});
  const Run r = run_to_idle(net);
  check_time("after the cancel: S/(2B) + 3S/(4B) (s)", S / (2 * B) + 0.75 * S / B, r.end.at(a));
}

TEST_CASE("network share: a share change for a whole group costs one update, not one per flow",
          "[unit][network]") {
  // 30 senders into host 0: one group at B/30. One more sender joins: the 30 change share
  // together, in place; only the new flow is placed.
  NetworkShare net(32, B, L);
  for (int s = 1; s <= 30; ++s)
    net.start(0, s, 0, S);
  net.next_completion();
  const NetworkShare::Stats before = net.stats();
  const uint64_t id = net.start(1e-6, 31, 0, S);
  net.next_completion();
  CHECK(net.rate(id) == Approx(B / 31));
  std::printf("%-58s group changes %llu, flows moved %llu\n", "31st sender joins a fan-in of 30",
              static_cast<unsigned long long>(net.stats().group_changes - before.group_changes),
              static_cast<unsigned long long>(net.stats().flow_moves - before.flow_moves));
  CHECK(net.stats().group_changes - before.group_changes == 1);
  CHECK(net.stats().flow_moves - before.flow_moves == 1);
}

namespace {

// The textbook algorithm on the whole network, for comparison: progressive filling.
std::map<uint64_t, double> reference_shares(int hosts, const std::map<uint64_t, std::pair<int, int>>& flows) {
  std::vector<double> remaining(static_cast<size_t>(3 * hosts));
  for (int h = 0; h < hosts; ++h) {
    remaining[static_cast<size_t>(h)] = B;
    remaining[static_cast<size_t>(hosts + h)] = B;
    remaining[static_cast<size_t>(2 * hosts + h)] = L;
  }
  auto links_of = [hosts](std::pair<int, int> sd) {
    return sd.first == sd.second ? std::vector<int>{2 * hosts + sd.first}
                                 : std::vector<int>{sd.first, hosts + sd.second};
  };
  std::map<uint64_t, double> share;
  std::map<uint64_t, std::pair<int, int>> open = flows;
  while (!open.empty()) {
    std::vector<int> count(remaining.size(), 0);
    for (const auto& [id, sd] : open)
      for (int l : links_of(sd))
        count[static_cast<size_t>(l)]++;
    double m = std::numeric_limits<double>::infinity();
    int bottleneck = -1;
    for (size_t l = 0; l < remaining.size(); ++l)
      if (count[l] > 0 && remaining[l] / count[l] < m) {
        m = remaining[l] / count[l];
        bottleneck = static_cast<int>(l);
      }
    for (auto it = open.begin(); it != open.end();) {
      const auto links = links_of(it->second);
      if (std::find(links.begin(), links.end(), bottleneck) == links.end()) {
        ++it;
        continue;
      }
      share[it->first] = m;
      for (int l : links)
        remaining[static_cast<size_t>(l)] -= m;
      it = open.erase(it);
    }
  }
  return share;
}

// Random traffic: hosts 3..40, transfers of 1 KB..2 MB among random pairs (a fifth to the same
// host) starting at random times, from a few to a few hundred at once; half the time a route's
// next transfer starts as one ends, as on a busy connection. After every start and completion
// `visit(net, shares)` sees the model and the whole-network algorithm's shares of the running
// transfers. Every transfer must end when its bytes are through, at the reference shares when
// the model is exact (slack 0), at the model's own otherwise. Returns the work counters.
template <class Visit> NetworkShare::Stats random_traffic(double slack, int trials, Visit visit) {
  Rng rng(11);
  NetworkShare::Stats totals;
  for (int trial = 0; trial < trials; ++trial) {
    const int hosts = 3 + static_cast<int>(rng.uniform() * 38);
    const double gap_s = trial % 2 == 0 ? 2e-4 : 4e-6;
    NetworkPrecision precision;
    precision.slack = slack;
    NetworkShare net(hosts, B, L, precision);
    std::map<uint64_t, std::pair<int, int>> open;
    std::map<uint64_t, double> left; // bytes, tracked apart from the model's bookkeeping
    double now = 0;
    int to_start = 60 + static_cast<int>(rng.uniform() * 80);
    std::map<uint64_t, double> share; // what `left` moves at
    while (to_start > 0 || !open.empty()) {
      const double next_end = net.next_completion();
      const double next_start =
          to_start > 0 ? now + rng.uniform() * gap_s : std::numeric_limits<double>::infinity();
      const double t = std::min(next_end, next_start);
      for (auto& [id, b] : left)
        b -= share.at(id) * (t - now);
      now = t;
      if (next_start <= next_end) {
        const int s = static_cast<int>(rng.uniform() * hosts);
        const int d = rng.uniform() < 0.2 ? s : static_cast<int>(rng.uniform() * hosts);
        const double bytes = 1e3 + std::floor(rng.uniform() * 2e6);
        const uint64_t id = net.start(now, s, d, bytes);
        open[id] = {s, d};
        left[id] = bytes;
        to_start--;
      } else {
        std::vector<uint64_t> done;
        net.complete_next(now, done);
        REQUIRE(!done.empty());
        for (uint64_t id : done) {
          // A transfer ends when its bytes are through (to the time precision at its share).
          CHECK(std::abs(left.at(id)) <= 1e-9 * share.at(id) + 1e-6);
          const std::pair<int, int> route = open.at(id);
          open.erase(id);
          left.erase(id);
          if (rng.uniform() < 0.5) {
            const double bytes = 1e3 + std::floor(rng.uniform() * 2e6);
            const uint64_t next = net.start(now, route.first, route.second, bytes);
            open[next] = route;
            left[next] = bytes;
          }
        }
      }
      const std::map<uint64_t, double> reference = reference_shares(hosts, open);
      visit(net, open, reference);
      share = reference;
      if (slack > 0)
        for (auto& [id, r] : share)
          r = net.rate(id);
    }
    const NetworkShare::Stats& st = net.stats();
    totals.solves += st.solves;
    totals.whole_solves += st.whole_solves;
    totals.region_links += st.region_links;
    totals.checked_links += st.checked_links;
    totals.checked_flows += st.checked_flows;
    totals.unchanged += st.unchanged;
    totals.deferred += st.deferred;
  }
  return totals;
}

} // namespace

TEST_CASE("network share: random traffic matches global progressive filling after every event",
          "[unit][network]") {
  double worst = 0;
  int events = 0;
  const NetworkShare::Stats totals =
      random_traffic(0, 40, [&](NetworkShare& net, const auto&, const std::map<uint64_t, double>& reference) {
        for (const auto& [id, expected] : reference)
          worst = std::max(worst, std::abs(net.rate(id) - expected) / expected);
        events++;
      });
  std::printf("%-58s %llu solves: %llu whole, %.2f region links and %.2f checked links each\n",
              "random traffic: work", static_cast<unsigned long long>(totals.solves),
              static_cast<unsigned long long>(totals.whole_solves),
              static_cast<double>(totals.region_links) / static_cast<double>(totals.solves),
              static_cast<double>(totals.checked_links) / static_cast<double>(totals.solves));
  std::printf("%-58s %llu solves skipped (counts per route unchanged)\n", "random traffic: work",
              static_cast<unsigned long long>(totals.unchanged));
  CHECK(totals.whole_solves < totals.solves); // the regional path is exercised
  CHECK(totals.unchanged > 0);                // and so is the shortcut
  std::printf("%-58s %d events, worst relative share error %.3g\n", "random traffic vs global filling",
              events, worst);
  CHECK(worst < 1e-9);
}

TEST_CASE("network share: with a slack, shares stay within it of max-min and checks are fewer",
          "[unit][network]") {
  // The approximation (NetworkPrecision::slack; the "approx" network model registers its own): a
  // link outside the changed region is checked only once its flows' shares have moved by more
  // than slack x its capacity. After every event, on every link, the flows' shares differ from
  // the global max-min ones by a total of at most three slacks of its capacity (the drift of a
  // link's neighbours adds to its own: 1.3 slacks measured at 1e-3, 2.4 at 0.02), and the solver
  // visits fewer flows than the exact one on the same traffic.
  const int trials = 40;
  const NetworkShare::Stats exact = random_traffic(0, trials, [](NetworkShare&, const auto&, const auto&) {});
  for (double slack : {1e-3, network_model_kind(NetworkModel::approx).slack}) {
    double worst_link = 0, worst_flow = 0;
    int events = 0;
    const NetworkShare::Stats approx = random_traffic(
        slack, trials,
        [&](NetworkShare& net, const std::map<uint64_t, std::pair<int, int>>& open,
            const std::map<uint64_t, double>& reference) {
          std::map<int, double> off; // per link: summed |share - max-min share| over its capacity
          const int hosts = net.hosts();
          for (const auto& [id, expected] : reference) {
            const double d = std::abs(net.rate(id) - expected);
            worst_flow = std::max(worst_flow, d / expected);
            const auto [s, t] = open.at(id);
            if (s == t) {
              off[2 * hosts + s] += d / L;
            } else {
              off[s] += d / B;
              off[hosts + t] += d / B;
            }
          }
          for (const auto& [link, total] : off)
            worst_link = std::max(worst_link, total);
          events++;
        });
    std::printf("slack %-52.0e %d events, worst link off by %.3g of its capacity, worst flow by %.3g\n",
                slack, events, worst_link, worst_flow);
    std::printf(
        "slack %-52.0e %llu flows visited by region solves and checks, %llu exact; %llu checks deferred\n",
        slack, static_cast<unsigned long long>(approx.region_flows + approx.checked_flows),
        static_cast<unsigned long long>(exact.region_flows + exact.checked_flows),
        static_cast<unsigned long long>(approx.deferred));
    CHECK(worst_link <= 3 * slack);
    CHECK(worst_link > 0); // the slack is used: shares do lag
    CHECK(approx.region_flows + approx.checked_flows < exact.region_flows + exact.checked_flows);
  }
}

TEST_CASE("network share: with no time precision, transfers end exactly when due", "[unit][network]") {
  NetworkShare net(3, B, L, NetworkPrecision{1e-5, 0});
  const uint64_t a = net.start(0, 1, 0, S), b = net.start(0, 2, 0, S + 0.4e-9 * B / 2);
  const Run r = run_to_idle(net);
  check_time("first of two ends at 2S/B (s)", 2 * S / B, r.end.at(a));
  check_time("second, due 0.4 ns later, ends 0.2 ns after it (s)", 2 * S / B + 0.2e-9, r.end.at(b));
}

TEST_CASE("network share: remembered whole solves give the same shares and times, bit for bit",
          "[unit][network]") {
  // Expectation: a whole solve depends only on how many flows take each route, so a network that
  // answers repeated configurations from memory behaves exactly as one that solves every time:
  // the same completion times, the same transfers ending, the same shares (compared with ==).
  // Four hosts with one transfer per route at a time (as on exsim's connections) make
  // configurations come back; some routes take two at a time, to cover counts above one.
  Rng rng(5);
  const int hosts = 4;
  NetworkPrecision remembering;
  NetworkPrecision solving;
  solving.remember_bytes = 0;
  NetworkShare a(hosts, B, L, remembering);
  NetworkShare b(hosts, B, L, solving);
  std::map<uint64_t, std::pair<uint64_t, int>> open; // a's id -> b's id and the route
  std::map<int, int> on_route;                       // route -> transfers running
  double now = 0;
  for (int step = 0; step < 4000; ++step) {
    const double next_end = a.next_completion();
    REQUIRE(next_end == b.next_completion());
    const double next_start = now + rng.uniform() * 2e-5;
    if (next_start < next_end) {
      now = next_start;
      const int s = static_cast<int>(rng.uniform() * hosts);
      const int d = static_cast<int>(rng.uniform() * hosts);
      const int route = s * hosts + d;
      if (on_route[route] >= (route % 5 == 0 ? 2 : 1)) continue;
      const double bytes = 1e3 + std::floor(rng.uniform() * 6e4);
      open[a.start(now, s, d, bytes)] = {b.start(now, s, d, bytes), route};
      on_route[route]++;
    } else {
      now = next_end;
      std::vector<uint64_t> done_a, done_b;
      a.complete_next(now, done_a);
      b.complete_next(now, done_b);
      REQUIRE(done_a.size() == done_b.size());
      for (size_t i = 0; i < done_a.size(); ++i) {
        const auto [id_b, route] = open.at(done_a[i]);
        REQUIRE(id_b == done_b[i]);
        on_route[route]--;
        open.erase(done_a[i]);
      }
    }
    for (const auto& [id_a, other] : open)
      REQUIRE(a.rate(id_a) == b.rate(other.first));
  }
  CHECK(a.stats().solves == b.stats().solves);
  CHECK(a.stats().whole_solves == b.stats().whole_solves);
  CHECK(a.stats().remembered > a.stats().whole_solves / 2); // most whole solves came from memory
  CHECK(b.stats().remembered == 0);
}
