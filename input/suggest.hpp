// "Did you mean ...?": the known name nearest to a misspelt one, for error messages about
// scenario keys, `--set` names and command-line options.
//   exsim::nearest_name("rpcs_in_flight_per_chanel", names) == "rpcs_in_flight_per_channel"
#pragma once

#include <string>
#include <vector>

namespace exsim {

// Edit distance with adjacent transpositions (optimal string alignment), ASCII case-insensitive.
size_t edit_distance(const std::string& a, const std::string& b);

// The candidate nearest to `word`: the one with the smallest edit distance if that distance is at
// most max(2, length / 3) (a typo), else the only candidate that starts with `word` (rtt -> rtt_us),
// else the only candidate that contains every '_'-separated part of `word` (nic_gbps ->
// nic_bandwidth_gbps). Empty when nothing is near or the choice is ambiguous.
std::string nearest_name(const std::string& word, const std::vector<std::string>& candidates);

// " did you mean NAME?" when a name is near, else "": appended to an error message.
std::string did_you_mean(const std::string& word, const std::vector<std::string>& candidates);

} // namespace exsim
