#include "input/param_rows.hpp"

#include "models/window/window_policy.hpp"

#include <fmt/format.h>

namespace exsim::param_rows {

namespace {

// The exchanges' flags.
void add_sender_and_receiver_flags(std::vector<ParamSpec>& t) {
  using S = Section;
  using T = ParamType;
  const auto none = std::nullopt;
  // Flags.
  t.push_back(binds(P(S::flags, "data_stream_sender_buffer_size", T::integer, "bytes", 16384, 1, 1LL << 31,
                      "hash collector size: rows per batch = max(1, this / fixed row bytes)"),
                    &Flags::data_stream_sender_buffer_size));
  t.push_back(binds(P(S::flags, "exchg_node_buffer_size_bytes", T::integer, "bytes", 10485760, 1, 1LL << 40,
                      "receiver buffer limit per receiver instance (a merging receiver divides it among the "
                      "senders that have not ended their stream, IMPALA-13475)"),
                    &Flags::exchg_node_buffer_size_bytes));
  t.push_back(binds(P(S::flags, "batch_size", T::integer, "rows", 1024, 1, 1 << 20,
                      "rows per row batch (RANDOM and broadcast send whole batches)"),
                    &Flags::batch_size));
  t.push_back(
      binds(P(S::flags, "mt_dop", T::integer, "instances per executor", 0, 0, 64,
              "fragment instances per executor; 0 runs one; > 0 runs a query's `parallel` plan when it "
              "has one"),
            &Flags::mt_dop));
  t.push_back(
      binds(P(S::flags, "rpcs_in_flight_per_channel", T::integer, "RPCs (K)", 1, 1, 64,
              "TransmitData RPCs a channel may keep in flight; applies to non-merging HASH_PARTITIONED "
              "and RANDOM senders unless an exchange sets it in its own flags"),
            &Flags::rpcs_in_flight_per_channel));
  // Listed in the settings only when set (as the runtime filter flags), so that results of
  // scenarios without them keep their settings as they were.
  t.push_back(
      binds(listed_when_set(choices(
                P(S::flags, "rpcs_in_flight_policy", T::enumeration, "", "fixed", none, none,
                  "how a channel's K moves at run time (a what-if: Impala has no such flag): fixed keeps "
                  "rpcs_in_flight_per_channel; bdp grows it from a bandwidth-delay-product estimate (gRPC's "
                  "BDP estimator) up to rpcs_in_flight_max; gradient follows the round trip against its "
                  "minimum (concurrency-limits' GradientLimit) between 1 and rpcs_in_flight_max. Both start "
                  "at rpcs_in_flight_per_channel and apply where K does"),
                window_policy_names())),
            &Flags::rpcs_in_flight_policy));
  t.push_back(
      binds(listed_when_set(
                P(S::flags, "rpcs_in_flight_max", T::integer, "RPCs (K_max)", 8, 1, 64,
                  "an adaptive policy's cap on K (a what-if); its channels budget K_max + 1 batches in "
                  "the memory estimate. 8: one channel's share of a 12.5 Gbit/s NIC over a 390 us round "
                  "trip in 16 KiB batches with 5 receivers (37 batches / 5)")),
            &Flags::rpcs_in_flight_max));
  t.push_back(binds(
      listed_when_set(P(S::flags, "rpcs_in_flight_series", T::boolean, "", false, none, none,
                        "results list each channel's K over time under an adaptive policy (change points, "
                        "`k_window.series`)")),
      &Flags::rpcs_in_flight_series));
  t.push_back(binds(P(S::flags, "compression", T::boolean, "", true, none, none,
                      "LZ4-compress batches sent to another daemon"),
                    &Flags::compression));
  t.push_back(binds(listed_when_set(P(S::flags, "compress_local_channels", T::boolean, "", false, none, none,
                      "with compression, LZ4-compress batches to a receiver in the same daemon too, as Impala "
                      "did before September 2023 (a what-if; since then it skips them: "
                      "krpc-data-stream-sender.cc, Channel::IsLocal)")),
                    &Flags::compress_local_channels));
}

// The daemon's service pools, end of stream, scans and runtime filters.
void add_daemon_and_scan_flags(std::vector<ParamSpec>& t) {
  using S = Section;
  using T = ParamType;
  const auto none = std::nullopt;
  t.push_back(
      binds(daemon_wide(P(S::flags, "datastream_service_num_svc_threads", T::integer, "threads", 0, 0, 1024,
                          "service threads per daemon, deserializing admitted batches; 0 means one per "
                          "logical CPU")),
            &Flags::datastream_service_num_svc_threads));
  t.push_back(binds(
      daemon_wide(P(S::flags, "datastream_service_num_deserialization_threads", T::integer, "threads", 16, 1,
                    1024, "threads per daemon deserializing deferred batches once room frees up")),
      &Flags::datastream_service_num_deserialization_threads));
  t.push_back(binds(
      choices(P(S::flags, "eos_flush", T::enumeration, "", "pipelined", none, none,
                "end of stream: pipelined (last batches, wait, EOS to all, wait) or serial (per channel)"),
              {"pipelined", "serial"}),
      &Flags::eos_flush));
  t.push_back(
      binds(only_since(P(S::flags, "num_scanner_threads", T::integer, "threads", 0, 0, 1024,
                         "scanner threads per scan node instance at mt_dop 0; 0 means one per logical "
                         "CPU (with mt_dop > 0 each instance scans on its own thread)"),
                       2),
            &Flags::num_scanner_threads));
  // Listed in the settings only when set, so that results of scenarios without runtime filters
  // keep their settings as they were.
  t.push_back(binds(
      only_since(listed_when_set(P(S::flags, "runtime_filter_wait_time_ms", T::integer, "ms", 1000, 0, 1e7,
                                   "how long a scan waits for its runtime filters before it reads, counted "
                                   "from the query's start on its executor (Impala's query option; its 0 "
                                   "means the daemon's default, 1000 ms; here 0 means not waiting)")),
                 2),
      &Flags::runtime_filter_wait_time_ms));
  t.push_back(binds(
      only_since(
          listed_when_set(choices(P(S::flags, "runtime_filter_mode", T::enumeration, "", "GLOBAL", none, none,
                                    "which runtime filters scans apply (Impala's query option): GLOBAL "
                                    "every one, LOCAL only those of a join in the scan's own fragment, "
                                    "OFF none; a scan passes 1/keep more rows for a filter it does not "
                                    "apply, and does not wait for it"),
                                  {"OFF", "LOCAL", "GLOBAL"})),
          2),
      &Flags::runtime_filter_mode));
  t.push_back(binds(
      only_since(
          listed_when_set(P(S::flags, "runtime_bloom_filter_size", T::integer, "bytes", 1048576, 0, 1LL << 30,
                            "bytes of a runtime filter on its way to the coordinator and from it "
                            "(Impala's RUNTIME_BLOOM_FILTER_SIZE default; its planner sizes a filter "
                            "by the build's distinct values between 1 MiB and 16 MiB)")),
          2),
      &Flags::runtime_bloom_filter_size));
}

} // namespace

void add_flags_rows(std::vector<ParamSpec>& t) {
  add_sender_and_receiver_flags(t);
  add_daemon_and_scan_flags(t);
}

} // namespace exsim::param_rows
