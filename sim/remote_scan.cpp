// A remote scan on SimGrid (see remote_scan.hpp).
#include "sim/remote_scan.hpp"

#include "input/remote_scan.hpp"
#include "input/scenario.hpp"
#include "sim/platform.hpp"

#include <fmt/format.h>
#include <simgrid/kernel/Timer.hpp>
#include <simgrid/s4u.hpp>

#include <algorithm>
#include <deque>
#include <memory>
#include <stdexcept>

namespace exsim {

namespace {

struct ScanPlatform {
  sg4::Host* s3 = nullptr;
  std::vector<sg4::Host*> hosts;
};

// S3's side has no bandwidth limit of its own (only the per-stream cap); each host's NIC is a
// split-duplex link carrying the inbound bandwidth. Links carry no latency: the time to first
// byte is spent before the transfer starts.
ScanPlatform build_scan_platform(const RemoteScanScenario& rs) {
  auto* zone = sg4::create_star_zone("remote-scan");
  ScanPlatform p;
  p.s3 = zone->create_host("s3", kFlopsPerSecond);
  auto* frontend = zone->create_link("s3-frontend", 1e15)->set_latency(0);
  zone->add_route(p.s3->get_netpoint(), nullptr, nullptr, nullptr, {sg4::LinkInRoute(frontend)}, true);
  const double nic_bps = rs.nic_bandwidth_gbps * 1e9 / 8;
  for (int h = 0; h < rs.hosts; ++h) {
    const std::string name = fmt::format("host-{}", h);
    sg4::Host* host = zone->create_host(name, kFlopsPerSecond);
    auto* nic = zone->create_split_duplex_link(name + "-nic", nic_bps)->set_latency(0);
    zone->add_route(host->get_netpoint(), nullptr, nullptr, nullptr,
                    {sg4::LinkInRoute(nic, sg4::LinkInRoute::Direction::UP)}, true);
    p.hosts.push_back(host);
  }
  zone->seal();
  return p;
}

// The time series' samples per executor at most: 2 million over all executors (about 64 MB, and
// about 200 MB of results), at least 1,000 each. A scan that outlasts them is refused after the run.
size_t series_points_per_executor(const RemoteScanScenario& rs) {
  return std::max<size_t>(1000, 2'000'000 / static_cast<size_t>(std::max(1, rs.executors)));
}

// One executor process: the prefetcher and the port it drives the engine through. Every call
// into the model happens in this executor's actor, on the events GETs and timers queue for it.
class ExecutorProcess final : public PrefetchPort {
public:
  ExecutorProcess(const RemoteScanScenario& rs, int index, uint64_t seed, const ScanPlatform& p)
      : s3_(p.s3), host_(p.hosts.at(static_cast<size_t>(rs.host_of(index)))), index_(index),
        stream_bps_(rs.stream_mb_per_s * 1e6), wake_(sg4::Semaphore::create(0)),
        model_(config(rs, seed), rs.splits_of(index), *this) {}

  double now() const override { return sg4::Engine::get_clock(); }

  // A GET is an actor of its own: it waits out the time to first byte, then receives its bytes,
  // which S3 sends at no more than the per-stream rate, sharing the NIC with every other
  // transfer to this host. (SimGrid 3.32 ignores Comm::set_rate on host-to-host sendto comms,
  // so the bytes go through a mailbox: a detached send posted on the "s3" host with the rate.)
  void start_get(uint64_t id, int64_t bytes, double ttfb_s) override {
    const std::string name = fmt::format("e{}-get{}", index_, id);
    sg4::Mailbox* mailbox = sg4::Mailbox::by_name(name);
    sg4::Actor::create(name + "-s3", s3_, [mailbox, bytes, rate = stream_bps_] {
      static char payload;
      mailbox->put_init(&payload, static_cast<uint64_t>(bytes))->set_rate(rate)->detach();
    });
    sg4::Actor::create(name, host_, [this, id, mailbox, ttfb_s] {
      if (ttfb_s > 0) sg4::this_actor::sleep_for(ttfb_s);
      mailbox->get<char>(); // the transfer starts once both ends are posted: now
      push({true, id});
    });
  }

  // A kernel timer: firing it never lets another actor run in the middle of the caller's work.
  void set_timer(double at_s, uint64_t token) override {
    simgrid::kernel::timer::Timer::set(std::max(at_s, now()), [this, token] { push({false, token}); });
  }

  void run() {
    model_.start();
    while (!model_.done()) {
      wake_->acquire();
      const Event e = events_.front();
      events_.pop_front();
      if (e.get)
        model_.get_done(e.id);
      else
        model_.timer(e.id);
    }
  }

  const SplitPrefetcher& model() const { return model_; }

private:
  struct Event {
    bool get;
    uint64_t id;
  };
  static PrefetchConfig config(const RemoteScanScenario& rs, uint64_t seed) {
    PrefetchConfig c = rs.prefetch;
    c.seed = seed;
    c.max_series_points = series_points_per_executor(rs);
    return c;
  }
  void push(Event e) {
    events_.push_back(e);
    wake_->release();
  }

  sg4::Host* s3_;
  sg4::Host* host_;
  int index_;
  double stream_bps_;
  std::deque<Event> events_;
  sg4::SemaphorePtr wake_;
  SplitPrefetcher model_;
};

} // namespace

RemoteScanRun run_remote_scan(const Scenario& sc) {
  const RemoteScanScenario& rs = *sc.remote_scan;
  auto engine = make_engine();
  // Two small actors per GET, thousands of them: a small stack each keeps their creation cheap.
  engine->set_config("contexts/stack-size:128");
  const ScanPlatform platform = build_scan_platform(rs);
  std::vector<std::unique_ptr<ExecutorProcess>> executors;
  for (int e = 0; e < rs.executors; ++e)
    executors.push_back(std::make_unique<ExecutorProcess>(
        rs, e, Rng::stream_seed(sc.seed, static_cast<uint64_t>(e)), platform));
  for (int e = 0; e < rs.executors; ++e) {
    ExecutorProcess* x = executors[static_cast<size_t>(e)].get();
    sg4::Actor::create(fmt::format("executor-{}", e), platform.hosts.at(static_cast<size_t>(rs.host_of(e))),
                       [x] { x->run(); });
  }
  bool deadlock = false;
  sg4::Engine::on_deadlock_cb([&deadlock] { deadlock = true; });
  engine->run();
  if (deadlock)
    throw std::logic_error("the remote scan deadlocked (an executor never finished); a bug in exsim");

  double end_s = 0;
  bool cut = false;
  for (const auto& x : executors) {
    end_s = std::max(end_s, x->model().counters().end_s);
    cut = cut || x->model().series_cut();
  }
  if (cut)
    throw InputError(fmt::format(
        "{}: series_step_s: the scan lasted {:.6g} s of simulated time, more than {} samples of {} s per executor "
        "can record; expected a series_step_s of at least {:.3g} s (or a shorter scan)",
        sc.file, end_s, series_points_per_executor(rs), rs.prefetch.series_step_s,
        end_s / static_cast<double>(series_points_per_executor(rs))));

  RemoteScanRun run;
  std::vector<double> host_bytes(static_cast<size_t>(rs.hosts), 0), begin(host_bytes.size(), 1e300),
      end(host_bytes.size(), 0);
  for (int e = 0; e < rs.executors; ++e) {
    const SplitPrefetcher& m = executors[static_cast<size_t>(e)]->model();
    ExecutorScanRun x;
    x.index = e;
    x.host = rs.host_of(e);
    x.counters = m.counters();
    x.series = m.series();
    const size_t h = static_cast<size_t>(x.host);
    host_bytes[h] += static_cast<double>(x.counters.bytes());
    begin[h] = std::min(begin[h], x.counters.begin_s);
    end[h] = std::max(end[h], x.counters.end_s);
    run.executors.push_back(std::move(x));
  }
  const double nic_bps = rs.nic_bandwidth_gbps * 1e9 / 8;
  for (size_t h = 0; h < host_bytes.size(); ++h)
    run.host_nic_utilization.push_back(end[h] > begin[h] ? host_bytes[h] / (nic_bps * (end[h] - begin[h]))
                                                         : 0.0);
  return run;
}

} // namespace exsim
