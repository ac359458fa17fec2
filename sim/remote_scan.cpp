// A remote scan on SimGrid (see remote_scan.hpp).
#include "sim/remote_scan.hpp"

#include "input/remote_scan.hpp"
#include "input/scenario.hpp"
#include "sim/clock.hpp"
#include "sim/platform.hpp"

#include <fmt/format.h>
#include <simgrid/s4u.hpp>

#include <algorithm>
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

// One executor process: its prefetcher, running on the models' Scheduler, and the object store it
// reads through, each GET a SimGrid transfer from "s3" to the executor's host.
class ExecutorProcess final : public ObjectStore {
public:
  ExecutorProcess(const RemoteScanScenario& rs, int index, uint64_t seed, const ScanPlatform& p, Scheduler& sched,
                  SimClock& clock)
      : s3_(p.s3), host_(p.hosts.at(static_cast<size_t>(rs.host_of(index)))), index_(index),
        stream_bps_(rs.stream_mb_per_s * 1e6), clock_(clock), model_(config(rs, seed), rs.splits_of(index), sched, *this) {}

  // A GET is an actor of its own: it waits out the time to first byte, then receives its bytes,
  // which S3 sends at no more than the per-stream rate, sharing the NIC with every other
  // transfer to this host. (SimGrid 3.32 ignores Comm::set_rate on host-to-host sendto comms,
  // so the bytes go through a mailbox: a detached send posted on the "s3" host with the rate.)
  void get(int64_t bytes, double ttfb_s, Callback done) override {
    const std::string name = fmt::format("e{}-get{}", index_, gets_++);
    sg4::Mailbox* mailbox = sg4::Mailbox::by_name(name);
    sg4::Actor::create(name + "-s3", s3_, [mailbox, bytes, rate = stream_bps_] {
      static char payload;
      mailbox->put_init(&payload, static_cast<uint64_t>(bytes))->set_rate(rate)->detach();
    });
    sg4::Actor::create(name, host_, [this, mailbox, ttfb_s, done] {
      if (ttfb_s > 0) sg4::this_actor::sleep_for(ttfb_s);
      mailbox->get<char>(); // the transfer starts once both ends are posted: now
      clock_.post_now(done);
    });
  }

  SplitPrefetcher& model() { return model_; }
  const SplitPrefetcher& model() const { return model_; }

private:
  static PrefetchConfig config(const RemoteScanScenario& rs, uint64_t seed) {
    PrefetchConfig c = rs.prefetch;
    c.seed = seed;
    c.max_series_points = series_points_per_executor(rs);
    return c;
  }

  sg4::Host* s3_;
  sg4::Host* host_;
  int index_;
  double stream_bps_;
  SimClock& clock_;
  uint64_t gets_ = 0;
  SplitPrefetcher model_;
};

} // namespace

RemoteScanRun run_remote_scan(const Scenario& sc) {
  const RemoteScanScenario& rs = *sc.remote_scan;
  auto engine = make_engine();
  // Two small actors per GET, thousands of them: a small stack each keeps their creation cheap.
  engine->set_config("contexts/stack-size:128");
  const ScanPlatform platform = build_scan_platform(rs);
  Scheduler sched;
  SimClock clock(sched);
  std::vector<std::unique_ptr<ExecutorProcess>> executors;
  for (int e = 0; e < rs.executors; ++e)
    executors.push_back(std::make_unique<ExecutorProcess>(
        rs, e, Rng::stream_seed(sc.seed, static_cast<uint64_t>(e)), platform, sched, clock));
  // The driver starts every executor's prefetcher and stays alive until the last has finished (the
  // models run as engine events, not actors, and SimGrid stops when no actor is left).
  struct Finish {
    size_t left;
    sg4::SemaphorePtr all_done = sg4::Semaphore::create(0);
    static void one(void* self, uint64_t) {
      auto* f = static_cast<Finish*>(self);
      if (--f->left == 0) f->all_done->release();
    }
  } finish{executors.size()};
  sg4::Actor::create("driver", platform.s3, [&] {
    if (executors.empty()) return;
    for (auto& x : executors)
      clock.post_now({[](void* p, uint64_t f) {
                        static_cast<ExecutorProcess*>(p)->model().start({&Finish::one, reinterpret_cast<Finish*>(f), 0});
                      },
                      x.get(), reinterpret_cast<uint64_t>(&finish)});
    finish.all_done->acquire();
  });
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
