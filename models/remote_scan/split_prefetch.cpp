// Executor-global split prefetch (see split_prefetch.hpp).
#include "models/remote_scan/split_prefetch.hpp"

#include <algorithm>
#include <stdexcept>

namespace exsim {

const char* to_string(PrefetchLimit l) {
  switch (l) {
  case PrefetchLimit::prefetch_concurrency:
    return "prefetch_concurrency";
  case PrefetchLimit::prefetch_bytes:
    return "prefetch_bytes";
  case PrefetchLimit::plan_ahead:
    return "plan_ahead";
  case PrefetchLimit::gets_in_flight:
    return "gets_in_flight";
  }
  return "?";
}

namespace {
constexpr uint64_t kStartupToken = 0;

TtfbDistribution ttfb_of(const PrefetchConfig& c, double p50_s, double p99_s) {
  if (c.ttfb_quantiles_s.empty()) return TtfbDistribution::lognormal(p50_s, p99_s);
  return TtfbDistribution::shifted(QuantileTable(c.ttfb_quantile_levels, c.ttfb_quantiles_s), p50_s);
}
} // namespace

std::vector<int64_t> spread_split_bytes(int64_t count, int64_t total, double cv, uint64_t seed) {
  if (count < 1 || total < count) throw std::logic_error("spread_split_bytes: need 1 <= count <= total");
  const size_t n = static_cast<size_t>(count);
  std::vector<long double> w(n, 1.0L);
  if (cv > 0) {
    Rng rng(seed);
    const LogNormal d = LogNormal::from_mean_cv(1, cv);
    for (auto& x : w)
      x = d.draw(rng);
  }
  long double sum = 0;
  for (long double x : w)
    sum += x;
  std::vector<int64_t> bytes(n);
  int64_t given = 0;
  for (size_t i = 0; i < n; ++i) {
    bytes[i] = std::max<int64_t>(1, static_cast<int64_t>(static_cast<long double>(total) * w[i] / sum));
    given += bytes[i];
  }
  // Rounding: the bytes left over go one each to the first splits; a surplus (from the one-byte
  // floor) comes off the largest.
  for (size_t i = 0; given < total; i = (i + 1) % n, ++given)
    ++bytes[i];
  while (given > total) {
    auto largest = std::max_element(bytes.begin(), bytes.end());
    const int64_t take = std::min(given - total, *largest - 1);
    *largest -= take;
    given -= take;
  }
  return bytes;
}

std::vector<int64_t> SplitPrefetcher::parts_of(int64_t bytes, int64_t part_bytes) {
  const int64_t n = std::max<int64_t>(1, (bytes + part_bytes - 1) / part_bytes);
  std::vector<int64_t> parts(static_cast<size_t>(n), bytes / n);
  for (int64_t i = 0; i < bytes % n; ++i)
    ++parts[static_cast<size_t>(i)];
  return parts;
}

SplitPrefetcher::SplitPrefetcher(const PrefetchConfig& config, std::vector<int64_t> split_bytes,
                                 Scheduler& sched, ObjectStore& store)
    : cfg_(config), sched_(sched), store_(store), rng_(config.seed),
      ttfb_(ttfb_of(config, config.ttfb_p50_s, config.ttfb_p99_s)),
      footer_ttfb_(ttfb_of(config, config.footer_ttfb_p50_s, config.footer_ttfb_p99_s)),
      window_(WindowPolicySpec{.kind = config.split_policy,
                               .initial = config.split_concurrency,
                               .max = config.split_policy == WindowPolicyKind::fixed ? config.split_concurrency
                                                                                     : config.split_max},
              config.max_in_flight_bytes),
      gets_(config.max_gets_in_flight),
      drivers_(static_cast<size_t>(std::max(1, config.scan_drivers))), consumer_(1) {
  if (cfg_.plan_ahead_splits < 1 || cfg_.part_bytes < 1 || cfg_.series_step_s <= 0)
    throw std::logic_error(
        "SplitPrefetcher: plan_ahead_splits, part_bytes and series_step_s must be positive");
  for (int64_t b : split_bytes) {
    if (b < 1) throw std::logic_error("SplitPrefetcher: every split needs data bytes");
    Split s;
    s.bytes = b;
    queue_.push_back(static_cast<int>(splits_.size()));
    splits_.push_back(s);
  }
}

void SplitPrefetcher::start(Callback on_finished) {
  on_finished_ = on_finished;
  last_s_ = sched_.now();
  if (cfg_.startup_s > 0)
    set_timer(last_s_ + cfg_.startup_s, kStartupToken);
  else
    begin();
}

void SplitPrefetcher::finish(double now) {
  c_.end_s = now;
  sample_until(now);
  const LimitTrace& trace = window_.policy().trace();
  c_.split_limit_mean = trace.mean(now);
  c_.split_limit_max = trace.max;
  if (on_finished_) sched_.post(on_finished_);
}

void SplitPrefetcher::set_timer(double at_s, uint64_t token) {
  sched_.at(std::max(at_s, sched_.now()), Callback::of<&SplitPrefetcher::timer>(this, token));
}

void SplitPrefetcher::begin() {
  const double now = sched_.now();
  account(now);
  begun_ = true;
  c_.begin_s = now;
  if (done()) {
    finish(now);
    return;
  }
  after_event();
}

// --- time accounting -------------------------------------------------------------------

void SplitPrefetcher::sample_until(double t) {
  // Samples strictly before `t` see the state that held until `t`; at the end, `t` itself too.
  const bool last = done() && begun_;
  while (true) {
    const double at = static_cast<double>(series_.t_s.size()) * cfg_.series_step_s;
    if (!(at < t || (last && at <= t))) break;
    if (cfg_.max_series_points > 0 && series_.t_s.size() >= cfg_.max_series_points) {
      series_cut_ = true;
      return;
    }
    series_.t_s.push_back(at);
    series_.splits_in_flight.push_back(window_.in_flight());
    series_.gets_in_flight.push_back(gets_.in_flight() + footers_in_flight_);
    series_.bytes_reserved.push_back(window_.reserved_bytes());
  }
  if (last && (series_.t_s.empty() || series_.t_s.back() < t)) {
    series_.t_s.push_back(t);
    series_.splits_in_flight.push_back(window_.in_flight());
    series_.gets_in_flight.push_back(gets_.in_flight() + footers_in_flight_);
    series_.bytes_reserved.push_back(window_.reserved_bytes());
  }
}

void SplitPrefetcher::account(double now) {
  const double dt = now - last_s_;
  if (begun_ && !done() && dt > 0) {
    const bool waiting_splits = !pending_.empty();
    const bool unplanned = planned_ < static_cast<int>(splits_.size());
    if (waiting_splits && !window_.has_free_slot())
      c_.limited_s[static_cast<int>(PrefetchLimit::prefetch_concurrency)] += dt;
    else if (waiting_splits)
      c_.limited_s[static_cast<int>(PrefetchLimit::prefetch_bytes)] += dt;
    else if (window_.has_free_slot() && unplanned)
      c_.limited_s[static_cast<int>(PrefetchLimit::plan_ahead)] += dt;
    if (!gets_.has_free_slot() && !(urgent_.empty() && normal_.empty()))
      c_.limited_s[static_cast<int>(PrefetchLimit::gets_in_flight)] += dt;
    if (consumer_.running() > 0) c_.consumer_busy_s += dt;
  }
  sample_until(now);
  last_s_ = now;
}

// --- events ----------------------------------------------------------------------------

void SplitPrefetcher::get_done(uint64_t id) {
  const double now = sched_.now();
  account(now);
  Get& g = get_.at(id);
  if (g.footer)
    --footers_in_flight_;
  else
    gets_.finish(g.slot, now);
  Split& s = splits_[static_cast<size_t>(g.split)];
  if (g.footer) {
    c_.footer_bytes += g.bytes;
    s.state = State::planned;
    ++planned_;
    pending_.push_back(g.split);
  } else {
    c_.data_bytes += g.bytes;
    c_.data_ttfb_s += g.ttfb_s;
    c_.data_transfer_s += now - g.started_s - g.ttfb_s;
    if (--s.parts_left == 0) {
      window_.finish(s.slot, now, Window::Release::later); // the bytes stay until a driver takes it
      s.slot = -1;
      s.state = State::loaded;
      if (c_.first_split_s < 0) {
        c_.first_split_s = now;
        c_.planned_at_first_split = planned_;
      }
    }
  }
  after_event();
}

void SplitPrefetcher::timer(uint64_t token) {
  if (token == kStartupToken) {
    begin();
    return;
  }
  if (token != consumer_token_) return; // superseded: the consumer's sharing changed since
  const double now = sched_.now();
  account(now);
  std::vector<uint64_t> finished;
  consumer_.complete_next(now, finished);
  for (uint64_t piece : finished)
    for (Driver& d : drivers_)
      if (d.consuming && d.piece == piece) {
        splits_[static_cast<size_t>(d.split)].state = State::consumed;
        ++consumed_;
        ++c_.splits;
        d.consuming = false;
        d.split = -1;
      }
  if (done()) {
    finish(now);
    return;
  }
  after_event();
  arm_consumer();
}

void SplitPrefetcher::after_event() {
  feed_drivers();
  plan();
  pump();
  dispatch_gets();
  c_.peak_splits_in_flight = std::max(c_.peak_splits_in_flight, window_.in_flight());
  c_.peak_gets_in_flight = std::max(c_.peak_gets_in_flight, gets_.in_flight() + footers_in_flight_);
  c_.peak_bytes_reserved = std::max(c_.peak_bytes_reserved, window_.reserved_bytes());
}

// --- planning and prefetch -------------------------------------------------------------

void SplitPrefetcher::plan() {
  auto start_footer = [this](int s) {
    Split& split = splits_[static_cast<size_t>(s)];
    if (split.state != State::queued) return;
    split.state = State::planning;
    issue(new_get(s, /*footer=*/true, cfg_.footer_bytes)); // planning reads it at once
  };
  // A split a driver is bound to (in order) has left the queue but is planned all the same.
  for (const Driver& d : drivers_)
    if (d.split >= 0) start_footer(d.split);
  const size_t n = std::min(queue_.size(), static_cast<size_t>(cfg_.plan_ahead_splits));
  for (size_t i = 0; i < n; ++i)
    start_footer(queue_[i]);
}

void SplitPrefetcher::pump() {
  // Waited-for splits first (they may exceed the byte window), then the rest in registration
  // order; a split that does not fit the byte window is passed over, a later smaller one may fit.
  bool any = false;
  for (int pass = 0; pass < 2; ++pass)
    for (int s : pending_) {
      if (!window_.has_free_slot()) break;
      const Split& split = splits_[static_cast<size_t>(s)];
      const bool demanded = split.waiter >= 0;
      if (split.state != State::planned || (pass == 0 && !demanded)) continue;
      if (!window_.can_start(split.bytes, demanded)) continue;
      schedule(s);
      any = true;
    }
  if (any)
    pending_.erase(
        std::remove_if(pending_.begin(), pending_.end(),
                       [this](int s) { return splits_[static_cast<size_t>(s)].state != State::planned; }),
        pending_.end());
}

void SplitPrefetcher::schedule(int s) {
  Split& split = splits_[static_cast<size_t>(s)];
  split.slot = window_.start(sched_.now(), split.bytes);
  split.state = State::loading;
  const std::vector<int64_t> parts = parts_of(split.bytes, cfg_.part_bytes);
  split.parts_left = static_cast<int>(parts.size());
  for (int64_t p : parts)
    (split.waiter >= 0 ? urgent_ : normal_).push_back(new_get(s, /*footer=*/false, p));
}

uint64_t SplitPrefetcher::new_get(int split, bool footer, int64_t bytes) {
  Get g;
  g.split = split;
  g.footer = footer;
  g.bytes = bytes;
  get_.push_back(g);
  return get_.size() - 1;
}

void SplitPrefetcher::issue(uint64_t id) {
  Get& g = get_[id];
  g.started_s = sched_.now();
  g.ttfb_s = (g.footer ? footer_ttfb_ : ttfb_).draw(rng_);
  if (g.footer) {
    ++footers_in_flight_;
    ++c_.footer_gets;
  } else {
    g.slot = gets_.start(g.started_s);
    ++c_.data_gets;
  }
  store_.get(g.bytes, g.ttfb_s, Callback::of<&SplitPrefetcher::get_done>(this, id));
}

void SplitPrefetcher::dispatch_gets() {
  while (gets_.has_free_slot() && !(urgent_.empty() && normal_.empty())) {
    std::deque<uint64_t>& q = urgent_.empty() ? normal_ : urgent_;
    const uint64_t id = q.front();
    q.pop_front();
    issue(id);
  }
}

// --- scan drivers and the consumer -----------------------------------------------------

void SplitPrefetcher::feed_drivers() {
  const double now = sched_.now();
  for (size_t i = 0; i < drivers_.size(); ++i) {
    Driver& d = drivers_[i];
    if (d.consuming) continue;
    const int di = static_cast<int>(i);
    if (d.split < 0 && !queue_.empty()) {
      // In order: the next split; planned-first: the first whose footer is read; ready-first:
      // the first that is loaded. A driver bound to a split that is not loaded waits for it.
      int pick = -1;
      if (cfg_.consumption == Consumption::in_order) {
        pick = queue_.front();
      } else {
        for (int s : queue_) {
          const State st = splits_[static_cast<size_t>(s)].state;
          const bool ready = cfg_.consumption == Consumption::ready_first
                                 ? st == State::loaded
                                 : st == State::planned || st == State::loading || st == State::loaded;
          if (ready) {
            pick = s;
            break;
          }
        }
      }
      if (pick >= 0) bind(di, pick);
    }
    if (d.split >= 0 && splits_[static_cast<size_t>(d.split)].state == State::loaded) {
      take(di);
      continue;
    }
    if (d.split < 0 && queue_.empty()) {
      if (d.waiting) c_.consumer_wait_s += now - d.wait_since;
      d.waiting = false;
      continue;
    }
    if (!d.waiting) {
      d.waiting = true;
      d.wait_since = now;
    }
    if (cfg_.consumption == Consumption::ready_first && d.split < 0 && d.demanded < 0) {
      // It takes whichever split loads first, and asks for the earliest one nobody waits for.
      for (int s : queue_) {
        const Split& split = splits_[static_cast<size_t>(s)];
        if (split.state != State::loaded && split.waiter < 0) {
          demand(di, s);
          break;
        }
      }
    }
  }
}

void SplitPrefetcher::bind(int d, int s) {
  Driver& driver = drivers_[static_cast<size_t>(d)];
  Split& split = splits_[static_cast<size_t>(s)];
  queue_.erase(std::find(queue_.begin(), queue_.end(), s));
  if (split.waiter >= 0 && split.waiter != d) undemand(split.waiter); // the other driver asks again
  undemand(d);
  driver.split = s;
  if (split.state != State::loaded) demand(d, s);
}

void SplitPrefetcher::demand(int d, int s) {
  Split& split = splits_[static_cast<size_t>(s)];
  split.waiter = d;
  drivers_[static_cast<size_t>(d)].demanded = s;
  if (split.state != State::loading) return; // not yet scheduled: pump gives it priority
  std::deque<uint64_t> keep;
  for (uint64_t id : normal_)
    (get_[id].split == s ? urgent_ : keep).push_back(id);
  normal_.swap(keep);
}

void SplitPrefetcher::undemand(int d) {
  Driver& driver = drivers_[static_cast<size_t>(d)];
  if (driver.demanded >= 0) {
    Split& split = splits_[static_cast<size_t>(driver.demanded)];
    if (split.waiter == d) split.waiter = -1;
  }
  driver.demanded = -1;
}

void SplitPrefetcher::take(int d) {
  const double now = sched_.now();
  Driver& driver = drivers_[static_cast<size_t>(d)];
  Split& split = splits_[static_cast<size_t>(driver.split)];
  undemand(d);
  split.state = State::taken;
  window_.release(split.bytes); // the byte window is freed when the consumer takes the split
  if (driver.waiting) c_.consumer_wait_s += now - driver.wait_since;
  if (!taken_any_) c_.consumer_first_wait_s = now - c_.begin_s;
  taken_any_ = true;
  driver.waiting = false;
  driver.consuming = true;
  driver.piece = consumer_.start(now, static_cast<double>(split.bytes) * cfg_.consumer_ns_per_byte * 1e-9);
  arm_consumer();
}

void SplitPrefetcher::arm_consumer() {
  if (consumer_.running() == 0) return;
  set_timer(consumer_.next_completion(), ++consumer_token_);
}

} // namespace exsim
