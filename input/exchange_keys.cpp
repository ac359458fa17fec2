#include "input/exchange_keys.hpp"

#include "input/parameters.hpp"
#include "models/exchange/sender_config.hpp"

#include <fmt/format.h>

namespace exsim {

using nlohmann::json;

void check_window_flags(const Flags& f, const std::string& path, Errors& err) {
  if (f.rpcs_in_flight_policy != WindowPolicyKind::fixed && f.rpcs_in_flight_max < f.rpcs_in_flight_per_channel)
    err.add(path + ".rpcs_in_flight_max",
            fmt::format("expected at least rpcs_in_flight_per_channel ({}), where an adaptive policy ({}) starts; "
                        "got {}",
                        f.rpcs_in_flight_per_channel, to_string(f.rpcs_in_flight_policy), f.rpcs_in_flight_max));
}

GivenKeys read_exchange(const json& x, const std::string& xp, const GlobalFlags& global_flags, int version,
                        ExchangeSpec& e, Errors& err) {
  bind_fields(Section::exchange, x, e);
  bind_fields(Section::exchange, x, e.shape);
  bind_fields(Section::exchange, x, e.costs);
  if (e.partitioning != Partitioning::directed) e.directed_fanout = 1; // only DIRECTED sends a row to several
  const json xflags = x.at("flags");
  const bool k_explicit = xflags.contains("rpcs_in_flight_per_channel");
  for (const auto& [k, v] : xflags.items())
    if (find_param(Section::flags, k, version)->daemon_wide)
      err.add(xp + ".flags." + k, "a daemon-wide setting (the pools are shared by every receiver on a daemon): set "
                                  "it in the top-level flags");
  // The exchange's own flags over the scenario's as bound.
  e.flags = global_flags.flags;
  bind_given(Section::flags, xflags, e.flags);
  GivenKeys given = global_flags.given;
  given.add(given_keys(Section::flags, xflags, version));
  e.k_set_by_exchange = k_explicit;
  if (e.merging && k_explicit && e.flags.rpcs_in_flight_per_channel > 1)
    err.add(xp + ".flags.rpcs_in_flight_per_channel",
            fmt::format("a merging exchange keeps K=1 (batches of one sender must arrive in order); got {}",
                        e.flags.rpcs_in_flight_per_channel));
  if (e.merging && xflags.contains("rpcs_in_flight_policy") && e.flags.rpcs_in_flight_policy != WindowPolicyKind::fixed)
    err.add(xp + ".flags.rpcs_in_flight_policy",
            fmt::format("a merging exchange keeps K=1 (batches of one sender must arrive in order); got {}",
                        to_string(e.flags.rpcs_in_flight_policy)));
  if (k_explicit || xflags.contains("rpcs_in_flight_policy") || xflags.contains("rpcs_in_flight_max"))
    check_window_flags(e.flags, xp + ".flags", err);
  if (x.contains("expected") && !x.at("expected").empty()) e.expected_json = x.at("expected").dump();
  return given;
}

void per_receiver(const json& x, const char* key, const std::string& xp, int receivers,
                  std::vector<double>& v, Errors& err) {
  if (!x.contains(key)) {
    v.assign(static_cast<size_t>(receivers), 1.0);
  } else if (static_cast<int>(v.size()) != receivers) {
    err.add(join_path(xp, key),
            fmt::format("expected one number per receiver instance ({}), got {}", receivers, v.size()));
  }
}

void check_receiver_counts(const json& x, const std::string& xp, ExchangeSpec& e, Errors& err) {
  const int receivers = e.receivers();
  per_receiver(x, "receiver_weights", xp, receivers, e.receiver_weights, err);
  if (e.directed_fanout > receivers)
    err.add(xp + ".directed_fanout", fmt::format("expected at most the number of receiver instances ({}), got {}",
                                                 receivers, e.directed_fanout));
}

void configure_sender(ExchangeSpec& e) {
  e.sender = sender_config({.partitioning = e.partitioning,
                            .merging = e.merging,
                            .receivers = e.receivers(),
                            .shape = e.shape,
                            .flags = e.flags,
                            .k_set_by_exchange = e.k_set_by_exchange});
}

void apply_exchange_defaults(json& x, const json& defaults, bool in_query, int version) {
  for (const auto& [key, value] : defaults.items()) {
    const ParamSpec* p = find_param(Section::exchange, key, version);
    if (in_query && p && p->standalone_only) continue;
    if (key == "flags" && x.contains("flags") && x["flags"].is_object()) {
      for (const auto& [fk, fv] : value.items())
        if (!x["flags"].contains(fk)) x["flags"][fk] = fv;
    } else if (!x.contains(key)) {
      x[key] = value;
    }
  }
}

} // namespace exsim
