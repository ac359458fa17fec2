// An exchange's keys, read the same way in both forms (the exchange-only form's `exchanges` and a
// query's `exchanges`): exchange_defaults merged in, the keys bound, its own flags over the
// scenario's, the K rule's checks, the per-receiver arrays once the receivers are known, and the
// sender's configuration built once.
//   apply_exchange_defaults(x, defaults, /*in_query=*/true, version);
//   read_exchange(x, path, {sc.flags, sc.settings_inputs.flags}, version, spec, err);
//   check_receiver_counts(x, path, spec, err);   configure_sender(spec);
#pragma once

#include "input/check.hpp"

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

namespace exsim {

// An adaptive K starts at rpcs_in_flight_per_channel and may not start above its cap. `path` names
// the flags object that set them.
void check_window_flags(const Flags& f, const std::string& path, Errors& err);

// The scenario's flags, which an exchange's own override: as bound, and the keys the file gave.
struct GlobalFlags {
  const Flags& flags;
  const GivenKeys& given;
};

// Reads the keys an exchange has in both forms (standalone and in a query). `x` has its
// defaults filled in. Returns the keys its flags came from (the scenario's, then its own), for the
// results' settings.
GivenKeys read_exchange(const nlohmann::json& x, const std::string& xp, const GlobalFlags& global_flags,
                        int version, ExchangeSpec& e, Errors& err);

// An exchange's array of one number per receiver instance, bound from `key`: given, it must have
// that many; absent, every receiver gets 1 (the row's derived default).
void per_receiver(const nlohmann::json& x, const char* key, const std::string& xp, int receivers,
                  std::vector<double>& v, Errors& err);

// Once the receivers are known: their weights, the DIRECTED fanout.
void check_receiver_counts(const nlohmann::json& x, const std::string& xp, ExchangeSpec& e, Errors& err);

// Once the receivers are known: the sender's configuration, built here once for the sender and the
// results.
void configure_sender(ExchangeSpec& e);

// Merges exchange_defaults into an exchange (its flags key by key).
void apply_exchange_defaults(nlohmann::json& x, const nlohmann::json& defaults, bool in_query, int version);

} // namespace exsim
