// "Did you mean": the nearest known name to a misspelt scenario key, flag or option.
#include "input/suggest.hpp"

#include <catch2/catch.hpp>

using namespace exsim;

TEST_CASE("edit distance counts insertions, deletions, substitutions and swaps", "[unit][suggest]") {
  CHECK(edit_distance("", "abc") == 3);
  CHECK(edit_distance("abc", "abc") == 0);
  CHECK(edit_distance("chanel", "channel") == 1); // insertion
  CHECK(edit_distance("mt_dpo", "mt_dop") == 1);  // adjacent swap
  CHECK(edit_distance("RTT_us", "rtt_us") == 0);  // case does not count
  CHECK(edit_distance("kitten", "sitting") == 3);
}

TEST_CASE("the nearest name: a typo, a prefix, the parts of a name, or nothing", "[unit][suggest]") {
  const std::vector<std::string> flags{"data_stream_sender_buffer_size", "rpcs_in_flight_per_channel",
                                       "mt_dop", "batch_size", "compression"};
  CHECK(nearest_name("rpcs_in_flight_per_chanel", flags) == "rpcs_in_flight_per_channel");
  CHECK(nearest_name("mt_dpo", flags) == "mt_dop");
  CHECK(nearest_name("compresion", flags) == "compression");
  CHECK(nearest_name("zzz", flags).empty());
  CHECK(nearest_name("", flags).empty());
  const std::vector<std::string> cluster{"executors", "nic_bandwidth_gbps", "rtt_us", "loopback_rtt_us"};
  CHECK(nearest_name("rtt", cluster) == "rtt_us");                  // the one name it starts
  CHECK(nearest_name("nic_gbps", cluster) == "nic_bandwidth_gbps"); // every part of it
  CHECK(did_you_mean("executor", cluster) == " did you mean executors?");
  CHECK(did_you_mean("bogus_key", cluster).empty());
  // Two equally near names: no guess.
  CHECK(nearest_name("ab", {"abc", "abd"}).empty());
}
