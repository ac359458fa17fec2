#include "models/network/network_share.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>

namespace exsim {

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

// Two shares computed along different paths (a region solve, a link check) differ by rounding;
// anything closer than this is the same share. Far below the solver's own 1e-5 threshold, so it
// never hides a real change; far above rounding of shares that are not themselves below it.
constexpr double kSameShare = 1e-10;

// The hash of a route holding `count` flows (0 for none, so that the empty network hashes to 0).
uint64_t route_term(int route, int count) {
  if (count == 0) return 0;
  uint64_t x = (static_cast<uint64_t>(route) << 16 | static_cast<uint64_t>(count)) + 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

bool same_share(double a, double b) {
  if (a == b) return true;
  if (std::isinf(a) || std::isinf(b)) return false;
  return std::abs(a - b) <= kSameShare * std::max(std::abs(a), std::abs(b));
}

} // namespace

NetworkShare::NetworkShare(int hosts, double nic_bytes_per_s, double loopback_bytes_per_s, NetworkPrecision p)
    : hosts_(hosts), prec_(p) {
  if (hosts < 1) throw std::invalid_argument("NetworkShare: at least one host");
  if (!(nic_bytes_per_s > 0) || !(loopback_bytes_per_s > 0) || std::isinf(nic_bytes_per_s) ||
      std::isinf(loopback_bytes_per_s))
    throw std::invalid_argument("NetworkShare: bandwidths must be positive and finite");
  links_.resize(static_cast<size_t>(3 * hosts));
  for (int h = 0; h < hosts; ++h) {
    links_[static_cast<size_t>(h)].capacity = nic_bytes_per_s;
    links_[static_cast<size_t>(hosts + h)].capacity = nic_bytes_per_s;
    links_[static_cast<size_t>(2 * hosts + h)].capacity = loopback_bytes_per_s;
  }
  for (Link& l : links_)
    l.level = kInf;
  route_delta_.assign(static_cast<size_t>(hosts) * static_cast<size_t>(hosts), 0);
  route_count_.assign(route_delta_.size(), 0);
  // A route's bottleneck + 1 is kept in 16 bits.
  const size_t entry_bytes = 2 * route_count_.size() * sizeof(uint16_t) + links_.size() * sizeof(double) +
                             4 * sizeof(std::pair<uint32_t, uint32_t>);
  if (links_.size() < UINT16_MAX)
    memo_.max_entries = std::min<size_t>(p.remember_bytes / entry_bytes, size_t{1} << 20);
  size_t slots = 16;
  while (slots < 2 * memo_.max_entries)
    slots *= 2;
  if (memo_.max_entries > 0) memo_.index.assign(slots, {0, 0});
}

int NetworkShare::route_of(const Flow& f) const {
  if (f.link[1] < 0) {
    const int h = f.link[0] - 2 * hosts_;
    return h * hosts_ + h;
  }
  return f.link[0] * hosts_ + (f.link[1] - hosts_);
}

void NetworkShare::count_route(const Flow& f, int delta) {
  const int r = route_of(f);
  uint16_t& c = route_count_[static_cast<size_t>(r)];
  if (delta > 0 && c == UINT16_MAX) throw std::length_error("NetworkShare: too many transfers on one route");
  int& d = route_delta_[static_cast<size_t>(r)];
  if (d == 0) routes_touched_.push_back(r);
  d += delta;
  config_hash_ ^= route_term(r, c);
  c = static_cast<uint16_t>(c + delta);
  config_hash_ ^= route_term(r, c);
}

// ---------------------------------------------------------------------------------------------
// Public operations.

void NetworkShare::settle(double now) {
  if (now < time_) throw std::logic_error("NetworkShare: time went backwards");
  // Changes made at an earlier instant hold from then on: solve them before time moves.
  if (!dirty_.empty() && now > dirty_time_) solve();
  time_ = now;
}

uint64_t NetworkShare::start(double now, int src, int dst, double bytes) {
  if (src < 0 || src >= hosts_ || dst < 0 || dst >= hosts_)
    throw std::invalid_argument("NetworkShare: no such host");
  if (!(bytes >= 0) || std::isinf(bytes)) throw std::invalid_argument("NetworkShare: bytes must be >= 0");
  settle(now);
  int f;
  if (!free_flows_.empty()) {
    f = free_flows_.back();
    free_flows_.pop_back();
  } else {
    f = static_cast<int>(flows_.size());
    if (static_cast<uint64_t>(f) > kSlotMask)
      throw std::length_error("NetworkShare: too many transfers at once");
    flows_.emplace_back();
  }
  Flow& fl = flows_[static_cast<size_t>(f)];
  fl = Flow{};
  fl.id = (next_seq_++ << kSlotBits) | static_cast<uint64_t>(f);
  fl.live = true;
  fl.finish = bytes; // the bytes, until the first solve gives it a group
  if (src == dst) {
    add_to_link(f, 0, 2 * hosts_ + src);
  } else {
    add_to_link(f, 0, src);
    add_to_link(f, 1, hosts_ + dst);
  }
  // SimGrid bounds a flow by the smallest bandwidth on its route (it never binds here: a flow
  // cannot get more than any of its links has).
  fl.bound = kInf;
  for (int l : fl.link)
    if (l >= 0) fl.bound = std::min(fl.bound, links_[static_cast<size_t>(l)].capacity);
  count_route(fl, +1);
  new_flows_.emplace_back(f, fl.id);
  running_++;
  return fl.id;
}

bool NetworkShare::cancel(double now, uint64_t id) {
  const size_t f = index(id);
  if (f >= flows_.size() || !flows_[f].live || flows_[f].id != id) return false;
  settle(now);
  if (flows_[f].group >= 0) leave(static_cast<int>(f));
  release_slot(static_cast<int>(f));
  return true;
}

double NetworkShare::next_completion() {
  if (!dirty_.empty()) solve();
  return group_heap_.empty() ? kInf : groups_[static_cast<size_t>(group_heap_[0])].due;
}

void NetworkShare::complete_next(double now, std::vector<uint64_t>& done) {
  if (now < time_) throw std::logic_error("NetworkShare: time went backwards");
  if (!dirty_.empty()) solve();
  time_ = now;
  const size_t first = done.size();
  // SimGrid ends every transfer whose due time is within the time precision of the event.
  while (!group_heap_.empty()) {
    const int g = group_heap_[0];
    const double due = groups_[static_cast<size_t>(g)].due;
    if (!(due <= now || due - now < prec_.time)) break;
    const int f = groups_[static_cast<size_t>(g)].heap[0];
    done.push_back(flows_[static_cast<size_t>(f)].id);
    leave(f);
    release_slot(f);
  }
  if (done.size() - first > 1) // start order
    std::sort(done.begin() + static_cast<std::ptrdiff_t>(first), done.end());
}

double NetworkShare::rate(uint64_t id) {
  const size_t f = index(id);
  if (f >= flows_.size() || !flows_[f].live || flows_[f].id != id)
    throw std::invalid_argument("NetworkShare: no such transfer");
  if (!dirty_.empty()) solve();
  return groups_[static_cast<size_t>(flows_[f].group)].rate;
}

// ---------------------------------------------------------------------------------------------
// Links.

void NetworkShare::mark_dirty(int link) {
  Link& l = links_[static_cast<size_t>(link)];
  if (!l.dirty) {
    l.dirty = true;
    dirty_.push_back(link);
  }
  dirty_time_ = time_;
}

void NetworkShare::add_to_link(int f, int which, int link) {
  Flow& fl = flows_[static_cast<size_t>(f)];
  Link& l = links_[static_cast<size_t>(link)];
  fl.link[which] = link;
  fl.pos[which] = static_cast<int>(l.flows.size());
  if (l.flows.empty()) busy_links_++;
  l.flows.push_back(f);
  mark_dirty(link);
}

void NetworkShare::remove_from_link(int f, int which) {
  Flow& fl = flows_[static_cast<size_t>(f)];
  Link& l = links_[static_cast<size_t>(fl.link[which])];
  const int pos = fl.pos[which];
  const int last = l.flows.back();
  l.flows[static_cast<size_t>(pos)] = last;
  Flow& moved = flows_[static_cast<size_t>(last)];
  moved.pos[moved.link[0] == fl.link[which] ? 0 : 1] = pos;
  l.flows.pop_back();
  if (l.flows.empty()) busy_links_--;
  mark_dirty(fl.link[which]);
}

void NetworkShare::release_slot(int f) {
  Flow& fl = flows_[static_cast<size_t>(f)];
  count_route(fl, -1);
  for (int w = 1; w >= 0; --w)
    if (fl.link[w] >= 0) remove_from_link(f, w);
  fl.live = false;
  free_flows_.push_back(f);
  running_--;
}

// ---------------------------------------------------------------------------------------------
// The solver.

double NetworkShare::level_seen(int link) const {
  const Link& l = links_[static_cast<size_t>(link)];
  return l.stamp == stamp_ ? l.new_level : l.level;
}

void NetworkShare::solve() {
  stats_.solves++;
  // Max-min shares depend only on how many flows take each route: if that is unchanged, so are
  // the levels, and a new flow takes the share the one it replaced had.
  bool unchanged = !routes_touched_.empty();
  for (int r : routes_touched_) {
    if (route_delta_[static_cast<size_t>(r)] != 0) unchanged = false;
    route_delta_[static_cast<size_t>(r)] = 0;
  }
  routes_touched_.clear();
  if (unchanged && place_new_flows()) {
    stats_.unchanged++;
    for (int l : dirty_)
      links_[static_cast<size_t>(l)].dirty = false;
    dirty_.clear();
    new_flows_.clear();
    return;
  }
  new_flows_.clear();
  region_.clear();
  for (int l : dirty_) {
    links_[static_cast<size_t>(l)].dirty = false;
    region_.push_back(l);
  }
  dirty_.clear();
  bool whole = false;
  while (true) {
    // A region that covers much of the busy network is solved whole: checking its boundary
    // would cost more than the rest.
    if (!whole && region_.size() * 4 > busy_links_) {
      whole = true;
      stats_.whole_solves++;
      region_.clear();
      for (size_t l = 0; l < links_.size(); ++l)
        if (!links_[l].flows.empty() || links_[l].level != kInf) region_.push_back(static_cast<int>(l));
    }
    if (whole) {
      whole_solve(region_);
      collect_changed(false);
      break;
    }
    region_solve(region_);
    collect_changed(true);
    bool grown = false;
    for (int l : candidates_) {
      stats_.checked_links++;
      links_[static_cast<size_t>(l)].drift = 0;
      if (!same_share(water_level(l), links_[static_cast<size_t>(l)].level)) {
        region_.push_back(l);
        grown = true;
      }
    }
    if (!grown) break;
  }
  commit(region_);
}

// New flows on routes whose flow counts are unchanged: each gets the lowest level on its route,
// in the group of that link. False (and the full solve) in the corner where that is not a share
// (a route whose links both count as not full: flows SimGrid leaves at their bound or at 0).
bool NetworkShare::place_new_flows() {
  const double now = dirty_time_;
  for (const auto& [f, id] : new_flows_) {
    Flow& fl = flows_[static_cast<size_t>(f)];
    if (!fl.live || fl.id != id || fl.group >= 0) continue; // ended in the same instant
    double rate = kInf;
    int via = -1;
    for (int l : fl.link)
      if (l >= 0 && links_[static_cast<size_t>(l)].level < rate) {
        rate = links_[static_cast<size_t>(l)].level;
        via = l;
      }
    if (via < 0 || !(rate <= fl.bound)) return false;
    int gi = links_[static_cast<size_t>(via)].group;
    if (gi < 0 || !same_share(groups_[static_cast<size_t>(gi)].rate, rate)) {
      gi = new_group(via, rate, now);
      links_[static_cast<size_t>(via)].group = gi;
    }
    join(f, gi, fl.finish, now);
    stats_.flow_moves++;
  }
  return true;
}

// Every flow on the region's links once, in the order a solve visits them (the links in order,
// each link's flows in order): stamped, listed in touched_ (commit works in that order) and
// given to `visit`.
template <class Visit> void NetworkShare::for_region_flows(const std::vector<int>& region, Visit visit) {
  touched_.clear();
  for (int l : region)
    for (int f : links_[static_cast<size_t>(l)].flows) {
      Flow& fl = flows_[static_cast<size_t>(f)];
      if (fl.stamp == stamp_) continue;
      fl.stamp = stamp_;
      touched_.push_back(f);
      visit(f, fl);
    }
  stats_.region_flows += touched_.size();
}

// Progressive filling on `region`, the levels of links outside it capping the flows that cross
// them, as SimGrid's maxmin_solve does on the whole system.
void NetworkShare::region_solve(const std::vector<int>& region) {
  ++stamp_;
  stats_.region_links += region.size();
  for (int l : region) {
    Link& ln = links_[static_cast<size_t>(l)];
    ln.stamp = stamp_;
    ln.drift = 0;
    ln.remaining = ln.capacity;
    ln.usage = static_cast<int>(ln.flows.size());
    ln.new_level = kInf;
    ln.active = false;
  }
  caps_.clear();
  for_region_flows(region, [&](int f, Flow& fl) {
    fl.fixed = false;
    fl.cap = fl.bound;
    fl.cap_link = -1;
    double inside = kInf; // the least capacity among its links in the region
    for (int k : fl.link) {
      if (k < 0) continue;
      const Link& lk = links_[static_cast<size_t>(k)];
      if (lk.stamp == stamp_) {
        inside = std::min(inside, lk.capacity);
      } else if (lk.level < fl.cap) {
        fl.cap = lk.level;
        fl.cap_link = k;
      }
    }
    // A share never exceeds the capacity of a link it crosses: a cap that high cannot bind.
    if (fl.cap < inside) caps_.push_back({fl.cap, f, fl.cap_link});
  });
  // A link's remaining capacity per unfixed flow only grows as flows are fixed (each at most the
  // current minimum), so the heap keeps one entry per link and refreshes a stale one when it
  // comes to the top: no heap operation per fixed flow.
  ratios_heap_.clear();
  for (int l : region) {
    Link& ln = links_[static_cast<size_t>(l)];
    if (ln.usage > 0 && ln.remaining > ln.capacity * prec_.share) {
      ln.active = true;
      ratios_heap_.push_back({ln.remaining / ln.usage, l});
    }
  }
  std::make_heap(ratios_heap_.begin(), ratios_heap_.end(), std::greater<>());
  // Most capped flows are fixed at their cap (the region's links are rarely everyone's
  // bottleneck): sorted once and walked, rather than a heap popped one by one.
  std::sort(caps_.begin(), caps_.end(), [](const Cap& a, const Cap& b) {
    const uint64_t x = order_of(a.cap), y = order_of(b.cap);
    return x < y || (x == y && a.flow < b.flow);
  });
  size_t next_cap = 0;
  while (true) {
    double m = 0;
    bool found = false;
    while (!ratios_heap_.empty()) {
      const RatioEntry top = ratios_heap_.front();
      const Link& ln = links_[static_cast<size_t>(top.link)];
      if (!ln.active) {
        std::pop_heap(ratios_heap_.begin(), ratios_heap_.end(), std::greater<>());
        ratios_heap_.pop_back();
        continue;
      }
      const double now_ratio = ln.remaining / ln.usage;
      if (now_ratio > top.ratio) { // stale: back in at its current key
        std::pop_heap(ratios_heap_.begin(), ratios_heap_.end(), std::greater<>());
        ratios_heap_.back().ratio = now_ratio;
        std::push_heap(ratios_heap_.begin(), ratios_heap_.end(), std::greater<>());
        continue;
      }
      m = now_ratio;
      found = true;
      break;
    }
    if (!found) break;
    // A flow held below m by a link outside the region (or by its bound) stops there first. m is
    // the share of the heap's top link; a flow that does not cross that link leaves it (and so m)
    // as it was, so the next cap is compared with the same m without looking again.
    auto skip_fixed = [&] {
      while (next_cap < caps_.size() && flows_[static_cast<size_t>(caps_[next_cap].flow)].fixed)
        next_cap++;
    };
    skip_fixed();
    if (next_cap < caps_.size() && caps_[next_cap].cap < m) {
      const int top = ratios_heap_.front().link;
      do {
        const Cap& c = caps_[next_cap++];
        fix(c.flow, c.cap, c.link);
        const Flow& fl = flows_[static_cast<size_t>(c.flow)];
        if (fl.link[0] == top || fl.link[1] == top) break;
        skip_fixed();
      } while (next_cap < caps_.size() && caps_[next_cap].cap < m);
      continue;
    }
    // The link with the least remaining capacity per flow is full: its flows get m.
    const int l = ratios_heap_.front().link;
    std::pop_heap(ratios_heap_.begin(), ratios_heap_.end(), std::greater<>());
    ratios_heap_.pop_back();
    Link& ln = links_[static_cast<size_t>(l)];
    ln.active = false;
    ln.new_level = m;
    for (int f : ln.flows)
      if (!flows_[static_cast<size_t>(f)].fixed) fix(f, m, l);
  }
  // Flows left unfixed crossed only links that counted as full (less than the precision left):
  // SimGrid fixes them when their link outside the region saturates, at its level; with no such
  // link, never (share 0).
  for (int f : touched_) {
    Flow& fl = flows_[static_cast<size_t>(f)];
    if (!fl.fixed) {
      fl.fixed = true;
      fl.new_rate = fl.cap_link >= 0 ? fl.cap : 0;
      fl.via = fl.cap_link;
    }
  }
}

// A whole solve: the remembered result of this configuration, or progressive filling (then
// remembered while there is room).
void NetworkShare::whole_solve(const std::vector<int>& region) {
  if (recall(region)) {
    stats_.remembered++;
    return;
  }
  region_solve(region);
  remember();
}

// What region_solve leaves for commit, from the entry of this configuration: the region's links
// stamped with their levels, and touched_ listing the flows in the order region_solve visits them,
// each with its route's bottleneck link and that link's level as its share.
bool NetworkShare::recall(const std::vector<int>& region) {
  if (memo_.index.empty()) return false;
  const size_t mask = memo_.index.size() - 1;
  const size_t routes = route_count_.size();
  const auto high = static_cast<uint32_t>(config_hash_ >> 32);
  const uint16_t* entry = nullptr;
  size_t e = 0;
  for (size_t i = static_cast<size_t>(config_hash_) & mask;; i = (i + 1) & mask) {
    const auto [h, slot] = memo_.index[i];
    if (slot == 0) return false;
    if (h != high) continue;
    e = slot - 1;
    entry = &memo_.routes[e * 2 * routes];
    if (std::equal(route_count_.begin(), route_count_.end(), entry)) break;
  }
  ++stamp_;
  stats_.region_links += region.size();
  const double* levels = &memo_.levels[e * links_.size()];
  const uint16_t* bottleneck = entry + routes;
  for (int l : region) {
    Link& ln = links_[static_cast<size_t>(l)];
    ln.stamp = stamp_;
    ln.drift = 0;
    ln.new_level = levels[l];
  }
  for_region_flows(region, [&](int, Flow& fl) {
    fl.fixed = true;
    fl.via = bottleneck[route_of(fl)] - 1;
    fl.new_rate = fl.via >= 0 ? levels[fl.via] : 0;
  });
  return true;
}

// Keeps the whole solve just made under the current configuration. In a whole solve every flow
// is fixed by its bottleneck link at that link's level, or left at 0 with none; a solve where
// that does not hold is not kept.
void NetworkShare::remember() {
  if (memo_.entries >= memo_.max_entries) return;
  for (int f : touched_) {
    const Flow& fl = flows_[static_cast<size_t>(f)];
    const double expected = fl.via >= 0 ? links_[static_cast<size_t>(fl.via)].new_level : 0;
    if (!(fl.new_rate == expected)) return;
  }
  const size_t routes = route_count_.size();
  if (memo_.entries == 0) { // the whole budget at once: growing by doubling could take twice it
    memo_.routes.reserve(memo_.max_entries * 2 * routes);
    memo_.levels.reserve(memo_.max_entries * links_.size());
  }
  const size_t e = memo_.entries++;
  memo_.routes.insert(memo_.routes.end(), route_count_.begin(), route_count_.end());
  memo_.routes.resize((e + 1) * 2 * routes, 0);
  memo_.levels.resize((e + 1) * links_.size(), kInf);
  for (size_t l = 0; l < links_.size(); ++l)
    if (links_[l].stamp == stamp_) memo_.levels[e * links_.size() + l] = links_[l].new_level;
  for (int f : touched_) {
    const Flow& fl = flows_[static_cast<size_t>(f)];
    memo_.routes[e * 2 * routes + routes + static_cast<size_t>(route_of(fl))] =
        static_cast<uint16_t>(fl.via + 1);
  }
  const size_t mask = memo_.index.size() - 1;
  size_t i = static_cast<size_t>(config_hash_) & mask;
  while (memo_.index[i].second != 0)
    i = (i + 1) & mask;
  memo_.index[i] = {static_cast<uint32_t>(config_hash_ >> 32), static_cast<uint32_t>(e + 1)};
}

void NetworkShare::fix(int f, double value, int via) {
  Flow& fl = flows_[static_cast<size_t>(f)];
  fl.fixed = true;
  fl.new_rate = value;
  fl.via = via;
  for (int k : fl.link)
    if (k >= 0) take_share(k, value);
}

// A flow on link `k` was fixed at `value`: an active region link has that much less for its other
// flows. An inactive one (saturated, full, or every flow fixed) is never looked at again.
void NetworkShare::take_share(int k, double value) {
  Link& ln = links_[static_cast<size_t>(k)];
  if (ln.stamp != stamp_ || !ln.active) return;
  // SimGrid's double_update: what falls below the precision is nothing.
  ln.remaining -= value;
  if (ln.remaining < ln.capacity * prec_.share) ln.remaining = 0;
  ln.usage--;
  if (ln.usage <= 0 || ln.remaining <= 0) ln.active = false; // full, or all fixed elsewhere
}

// The level link `l` would have alone, its flows capped by their other links' levels (the
// region's new ones where solved): water-filling by passes, each fixing every flow capped below
// the current share (fixing one only raises the share, so all of them would be fixed in turn).
double NetworkShare::water_level(int l) {
  const Link& ln = links_[static_cast<size_t>(l)];
  stats_.checked_flows += ln.flows.size();
  if (ln.flows.empty()) return kInf;
  level_caps_.clear();
  for (int f : ln.flows) {
    const Flow& fl = flows_[static_cast<size_t>(f)];
    double cap = fl.bound;
    for (int k : fl.link)
      if (k >= 0 && k != l) cap = std::min(cap, level_seen(k));
    level_caps_.push_back(cap);
  }
  double remaining = ln.capacity;
  size_t usage = level_caps_.size();
  while (true) {
    const double m = remaining / static_cast<double>(usage);
    size_t kept = 0;
    for (size_t i = 0; i < level_caps_.size(); ++i) {
      if (level_caps_[i] < m) {
        remaining -= level_caps_[i];
        usage--;
      } else {
        level_caps_[kept++] = level_caps_[i];
      }
    }
    const bool fixed_any = kept < level_caps_.size();
    level_caps_.resize(kept);
    if (remaining < ln.capacity * prec_.share || usage == 0) return kInf;
    if (!fixed_any) return m;
  }
}

// The solved flows whose share changed (new flows included), in solve order, counted per group
// for commit: a group whose every flow moves to one share changes its rate in place. With
// `outside`, also the links outside the region that carry them and are due a check (candidates_):
// do their levels still hold? With a slack, only those whose flows' shares have drifted by more
// than it are checked.
void NetworkShare::collect_changed(bool outside) {
  changed_.clear();
  candidates_.clear();
  for (int f : touched_) {
    Flow& fl = flows_[static_cast<size_t>(f)];
    Group* g = fl.group >= 0 ? &groups_[static_cast<size_t>(fl.group)] : nullptr;
    const double old_rate = g != nullptr ? g->rate : 0;
    if (g != nullptr && same_share(old_rate, fl.new_rate)) continue;
    if (outside) {
      for (int l : fl.link) {
        if (l < 0) continue;
        Link& ln = links_[static_cast<size_t>(l)];
        if (ln.stamp == stamp_ || ln.cstamp == stamp_) continue;
        if (prec_.slack > 0) {
          ln.drift += std::abs(fl.new_rate - old_rate);
          if (ln.drift <= prec_.slack * ln.capacity) {
            stats_.deferred++;
            continue;
          }
        }
        ln.cstamp = stamp_;
        candidates_.push_back(l);
      }
    }
    if (g != nullptr) {
      if (g->stamp != stamp_) {
        g->stamp = stamp_;
        g->changed = 0;
        g->uniform = true;
        g->target = fl.new_rate;
      }
      g->changed++;
      if (fl.new_rate != g->target) g->uniform = false;
    }
    changed_.push_back(f);
  }
}

// Makes the solve's result current: the region's levels, and the changed flows' groups.
void NetworkShare::commit(const std::vector<int>& region) {
  const double now = dirty_time_;
  for (int l : region) {
    Link& ln = links_[static_cast<size_t>(l)];
    ln.level = ln.new_level;
  }
  for (int f : changed_) {
    const int gi = flows_[static_cast<size_t>(f)].group;
    if (gi < 0) continue;
    Group& g = groups_[static_cast<size_t>(gi)];
    if (g.stamp != stamp_ || !g.uniform || g.changed != static_cast<int>(g.heap.size())) continue;
    advance(g, now);
    g.rate = g.target;
    g.changed = -1; // done: its flows stay
    refresh_due(gi);
    group_heap_fix(gi);
    stats_.group_changes++;
  }
  for (int f : changed_) {
    Flow& fl = flows_[static_cast<size_t>(f)];
    double remaining = fl.finish; // bytes, for a new flow
    if (fl.group >= 0) {
      Group& g = groups_[static_cast<size_t>(fl.group)];
      if (g.stamp == stamp_ && g.changed == -1) continue;
      remaining = std::max(0.0, fl.finish - clock_at(g, now));
      leave(f);
    }
    const int owner = fl.via >= 0 ? fl.via : fl.link[0];
    int gi = links_[static_cast<size_t>(owner)].group;
    if (gi < 0 || !same_share(groups_[static_cast<size_t>(gi)].rate, fl.new_rate)) {
      gi = new_group(owner, fl.new_rate, now);
      links_[static_cast<size_t>(owner)].group = gi;
    }
    join(f, gi, remaining, now);
    stats_.flow_moves++;
  }
}

// ---------------------------------------------------------------------------------------------
// Groups: a service clock each, a heap of their flows' finish clocks, a heap of groups.

int NetworkShare::new_group(int owner, double rate, double now) {
  int gi;
  if (!free_groups_.empty()) {
    gi = free_groups_.back();
    free_groups_.pop_back();
  } else {
    gi = static_cast<int>(groups_.size());
    groups_.emplace_back();
  }
  Group& g = groups_[static_cast<size_t>(gi)];
  g.rate = rate;
  g.clock = 0;
  g.t = now;
  g.heap.clear();
  g.owner = owner;
  g.due = kInf;
  g.stamp = 0;
  g.gpos = static_cast<int>(group_heap_.size());
  group_heap_.push_back(gi);
  group_heap_up(g.gpos);
  return gi;
}

void NetworkShare::free_group(int gi) {
  Group& g = groups_[static_cast<size_t>(gi)];
  group_heap_remove(gi);
  if (g.owner >= 0 && links_[static_cast<size_t>(g.owner)].group == gi)
    links_[static_cast<size_t>(g.owner)].group = -1;
  g.owner = -1;
  free_groups_.push_back(gi);
}

void NetworkShare::advance(Group& g, double now) {
  if (now == g.t) return;
  g.clock += g.rate * (now - g.t);
  g.t = now;
}

void NetworkShare::join(int f, int gi, double remaining, double now) {
  Group& g = groups_[static_cast<size_t>(gi)];
  advance(g, now);
  Flow& fl = flows_[static_cast<size_t>(f)];
  fl.group = gi;
  fl.finish = g.clock + remaining;
  fl.heap_pos = static_cast<int>(g.heap.size());
  g.heap.push_back(f);
  flow_heap_up(g, fl.heap_pos);
  refresh_due(gi);
  group_heap_fix(gi);
}

void NetworkShare::leave(int f) {
  Flow& fl = flows_[static_cast<size_t>(f)];
  const int gi = fl.group;
  Group& g = groups_[static_cast<size_t>(gi)];
  const int pos = fl.heap_pos;
  const int last = g.heap.back();
  g.heap.pop_back();
  if (last != f) {
    g.heap[static_cast<size_t>(pos)] = last;
    flows_[static_cast<size_t>(last)].heap_pos = pos;
    flow_heap_up(g, pos);
    flow_heap_down(g, flows_[static_cast<size_t>(last)].heap_pos);
  }
  fl.group = -1;
  fl.heap_pos = -1;
  if (g.heap.empty()) {
    free_group(gi);
  } else {
    refresh_due(gi);
    group_heap_fix(gi);
  }
}

void NetworkShare::refresh_due(int gi) {
  Group& g = groups_[static_cast<size_t>(gi)];
  if (g.heap.empty()) {
    g.due = kInf;
    return;
  }
  const double left = std::max(0.0, flows_[static_cast<size_t>(g.heap[0])].finish - g.clock);
  g.due = left == 0 ? g.t : g.rate > 0 ? g.t + left / g.rate : kInf;
}

void NetworkShare::flow_heap_up(Group& g, int i) {
  auto key = [this](int f) { return flows_[static_cast<size_t>(f)].finish; };
  while (i > 0) {
    const int parent = (i - 1) / 2;
    const int a = g.heap[static_cast<size_t>(i)], b = g.heap[static_cast<size_t>(parent)];
    if (!(key(a) < key(b) ||
          (key(a) == key(b) && flows_[static_cast<size_t>(a)].id < flows_[static_cast<size_t>(b)].id)))
      break;
    std::swap(g.heap[static_cast<size_t>(i)], g.heap[static_cast<size_t>(parent)]);
    flows_[static_cast<size_t>(a)].heap_pos = parent;
    flows_[static_cast<size_t>(b)].heap_pos = i;
    i = parent;
  }
}

void NetworkShare::flow_heap_down(Group& g, int i) {
  auto less = [this](int a, int b) {
    const Flow& x = flows_[static_cast<size_t>(a)];
    const Flow& y = flows_[static_cast<size_t>(b)];
    return x.finish != y.finish ? x.finish < y.finish : x.id < y.id;
  };
  const int n = static_cast<int>(g.heap.size());
  while (true) {
    int best = i;
    for (int c = 2 * i + 1; c <= 2 * i + 2 && c < n; ++c)
      if (less(g.heap[static_cast<size_t>(c)], g.heap[static_cast<size_t>(best)])) best = c;
    if (best == i) return;
    std::swap(g.heap[static_cast<size_t>(i)], g.heap[static_cast<size_t>(best)]);
    flows_[static_cast<size_t>(g.heap[static_cast<size_t>(i)])].heap_pos = i;
    flows_[static_cast<size_t>(g.heap[static_cast<size_t>(best)])].heap_pos = best;
    i = best;
  }
}

namespace {
template <class Groups> bool group_before(const Groups& groups, int a, int b) {
  const double da = groups[static_cast<size_t>(a)].due, db = groups[static_cast<size_t>(b)].due;
  return da != db ? da < db : a < b;
}
} // namespace

void NetworkShare::group_heap_up(int i) {
  while (i > 0) {
    const int parent = (i - 1) / 2;
    if (!group_before(groups_, group_heap_[static_cast<size_t>(i)], group_heap_[static_cast<size_t>(parent)]))
      break;
    std::swap(group_heap_[static_cast<size_t>(i)], group_heap_[static_cast<size_t>(parent)]);
    groups_[static_cast<size_t>(group_heap_[static_cast<size_t>(i)])].gpos = i;
    groups_[static_cast<size_t>(group_heap_[static_cast<size_t>(parent)])].gpos = parent;
    i = parent;
  }
}

void NetworkShare::group_heap_down(int i) {
  const int n = static_cast<int>(group_heap_.size());
  while (true) {
    int best = i;
    for (int c = 2 * i + 1; c <= 2 * i + 2 && c < n; ++c)
      if (group_before(groups_, group_heap_[static_cast<size_t>(c)], group_heap_[static_cast<size_t>(best)]))
        best = c;
    if (best == i) return;
    std::swap(group_heap_[static_cast<size_t>(i)], group_heap_[static_cast<size_t>(best)]);
    groups_[static_cast<size_t>(group_heap_[static_cast<size_t>(i)])].gpos = i;
    groups_[static_cast<size_t>(group_heap_[static_cast<size_t>(best)])].gpos = best;
    i = best;
  }
}

void NetworkShare::group_heap_fix(int gi) {
  const int pos = groups_[static_cast<size_t>(gi)].gpos;
  group_heap_up(pos);
  group_heap_down(groups_[static_cast<size_t>(gi)].gpos);
}

void NetworkShare::group_heap_remove(int gi) {
  const int pos = groups_[static_cast<size_t>(gi)].gpos;
  const int last = group_heap_.back();
  group_heap_.pop_back();
  groups_[static_cast<size_t>(gi)].gpos = -1;
  if (last == gi) return;
  group_heap_[static_cast<size_t>(pos)] = last;
  groups_[static_cast<size_t>(last)].gpos = pos;
  group_heap_fix(last);
}

} // namespace exsim
