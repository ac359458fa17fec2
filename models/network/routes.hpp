// Route latencies of the cluster: half a round trip each way, between two executors or within
// one (loopback), for requests and responses alike. The engine's platform and the models' daemons
// read the same values.
//   exsim::Routes r = exsim::Routes::of(390, 50);   // rtt_us, loopback_rtt_us
//   double s = r.one_way_s(from_host, to_host);
#pragma once

namespace exsim {

struct Routes {
  double remote_one_way_s = 0;
  double local_one_way_s = 0;
  double one_way_s(int from, int to) const { return from == to ? local_one_way_s : remote_one_way_s; }
  static Routes of(double rtt_us, double loopback_rtt_us) { return {rtt_us * 1e-6 / 2, loopback_rtt_us * 1e-6 / 2}; }
};

} // namespace exsim
