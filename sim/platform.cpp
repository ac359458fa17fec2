#include "sim/platform.hpp"

#include <fmt/format.h>
#include <xbt/log.h>

namespace exsim {

void configure_engine(sg4::Engine& engine) {
  // The default LV08 model scales latency by 13.01 and adds reverse cross traffic; CM02 with
  // these settings gives time = latency + size / bandwidth share, to the nanosecond. exsim's links
  // carry no latency of their own (the actors add it), but the settings keep bandwidth exact.
  engine.set_config("network/model:CM02");
  engine.set_config("network/crosstraffic:0");
  engine.set_config("network/TCP-gamma:0");
}

std::unique_ptr<sg4::Engine> make_engine() {
  static char name[] = "exsim";
#if defined(__SANITIZE_ADDRESS__)
  // Debian's SimGrid does not tell ASan about its context switches, so under ASan every stack
  // switch looks like an overflow. Thread contexts are slower but switch stacks the ordinary way.
  // The factory is chosen when the engine is built, hence a command-line setting.
  static char contexts[] = "--cfg=contexts/factory:thread";
  static int argc = 2;
  static char* argv[] = {name, contexts, nullptr};
#else
  static int argc = 1;
  static char* argv[] = {name, nullptr};
#endif
  xbt_log_control_set("root.thres:critical");
  auto engine = std::make_unique<sg4::Engine>(&argc, argv);
  configure_engine(*engine);
  return engine;
}

Platform build_platform(const ClusterSpec& c) {
  auto* zone = sg4::create_star_zone("cluster");
  const double nic_bps = c.nic_bandwidth_gbps * 1e9 / 8;     // bytes per second
  const double lo_bps = c.loopback_bandwidth_gbps * 1e9 / 8; // bytes per second
  Platform p;
  p.routes = Routes::of(c.rtt_us, c.loopback_rtt_us, c.daemons_per_host);
  p.nic_bytes_per_s = nic_bps;
  p.loopback_bytes_per_s = lo_bps;
  p.host_count = c.hosts();
  std::vector<sg4::Host*> machines;
  for (int i = 0; i < p.host_count; ++i) {
    const std::string name = fmt::format("executor-{}", i); // the first daemon's index
    sg4::Host* host = zone->create_host(name, kFlopsPerSecond)->set_core_count(c.cores_per_executor);
    // A remote message crosses the sender's NIC up and the receiver's NIC down.
    auto* nic = zone->create_split_duplex_link(name + "-nic", nic_bps)->set_latency(0);
    auto* lo = zone->create_link(name + "-lo", lo_bps)->set_latency(0);
    zone->add_route(host->get_netpoint(), nullptr, nullptr, nullptr,
                    {sg4::LinkInRoute(nic, sg4::LinkInRoute::Direction::UP)}, true);
    zone->add_route(host->get_netpoint(), host->get_netpoint(), nullptr, nullptr, {sg4::LinkInRoute(lo)},
                    false);
    machines.push_back(host);
  }
  for (int d = 0; d < c.executors; ++d)
    p.hosts.push_back(machines.at(static_cast<size_t>(p.routes.host_of(d))));
  zone->seal();
  return p;
}

} // namespace exsim
