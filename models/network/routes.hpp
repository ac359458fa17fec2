// Route latencies of the cluster: half a round trip each way, between two hosts or within one
// (loopback: to the same daemon, or to another daemon on its host), for requests and responses
// alike. Daemons d share host d / daemons_per_host. The engine's platform and the models' daemons
// read the same values.
//   exsim::Routes r = exsim::Routes::of(390, 50, 1);   // rtt_us, loopback_rtt_us, daemons per host
//   double s = r.one_way_s(from_daemon, to_daemon);
#pragma once

namespace exsim {

struct Routes {
  double remote_one_way_s = 0;
  double local_one_way_s = 0;
  int daemons_per_host = 1;
  int host_of(int daemon) const { return daemon / daemons_per_host; }
  bool same_host(int a, int b) const { return host_of(a) == host_of(b); }
  double one_way_s(int from, int to) const { return same_host(from, to) ? local_one_way_s : remote_one_way_s; }
  static Routes of(double rtt_us, double loopback_rtt_us, int daemons_per_host) {
    return {rtt_us * 1e-6 / 2, loopback_rtt_us * 1e-6 / 2, daemons_per_host};
  }
};

} // namespace exsim
