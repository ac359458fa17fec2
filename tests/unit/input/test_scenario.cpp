// Scenario parameters: the table, defaults, overrides and the committed schema.
#include "input/parameter_docs.hpp"
#include "input/parameters.hpp"
#include "input/scenario.hpp"

#include <catch2/catch.hpp>

#include <fstream>
#include <limits>
#include <set>
#include <sstream>

using namespace exsim;
using nlohmann::json;

namespace {
json minimal() {
  return json::parse(R"({"schema_version": 1, "exchanges": [{"id": "x", "partitioning": "HASH_PARTITIONED",
                          "rows_total": 1000}]})");
}
std::string error_of(const json& doc, const std::vector<Override>& o = {}) {
  try {
    build_scenario(doc, "t.json", o);
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}
} // namespace

TEST_CASE("defaults come from the parameter table", "[unit][scenario]") {
  const Scenario s = build_scenario(minimal(), "t.json");
  CHECK(s.cluster.executors == find_param(Section::cluster, "executors")->default_value.get<int>());
  CHECK(s.cluster.rtt_us == 390);
  CHECK(s.flags.data_stream_sender_buffer_size == 16384);
  CHECK(s.flags.exchg_node_buffer_size_bytes == 10485760);
  CHECK(s.exchange(0).senders() == 5);
  CHECK(s.exchange(0).receivers() == 5);
  CHECK(s.exchange(0).sender.k == 1);
  CHECK(s.name == "t");
}

TEST_CASE("mt_dop sets the instances per executor", "[unit][scenario]") {
  const Scenario s = build_scenario(minimal(), "t.json", {{"mt_dop", "8"}});
  CHECK(s.exchange(0).senders() == 40);
  CHECK(s.exchange(0).receivers() == 40);
}

TEST_CASE("K applies to hash and random, not to merging, broadcast, Kudu or directed", "[unit][scenario]") {
  json doc = minimal();
  doc["flags"] = {{"rpcs_in_flight_per_channel", 3}};
  doc["exchanges"].push_back({{"id", "b"}, {"partitioning", "UNPARTITIONED"}, {"rows_total", 1}});
  doc["exchanges"].push_back(
      {{"id", "m"}, {"partitioning", "HASH_PARTITIONED"}, {"merging", true}, {"rows_total", 1}});
  doc["exchanges"].push_back({{"id", "r"}, {"partitioning", "RANDOM"}, {"rows_total", 1}});
  doc["exchanges"].push_back({{"id", "w"},
                              {"partitioning", "KUDU"},
                              {"rows_total", 1},
                              {"flags", {{"rpcs_in_flight_per_channel", 2}}}});
  const Scenario s = build_scenario(doc, "t.json");
  CHECK(s.exchange(0).sender.k == 3);
  CHECK(s.exchange(1).sender.k == 1);
  CHECK(s.exchange(2).sender.k == 1);
  CHECK(s.exchange(3).sender.k == 3);
  CHECK(s.exchange(4).sender.k == 2); // explicit what-if
}

TEST_CASE("overrides reach flags and JSON paths", "[unit][scenario]") {
  const Scenario s = build_scenario(minimal(), "t.json",
                                    {{"compression", "false"},
                                     {"cluster.rtt_us", "100"},
                                     {"exchanges[0].rows_total", "5"},
                                     {"eos_flush", "serial"}});
  CHECK_FALSE(s.flags.compression);
  CHECK(s.cluster.rtt_us == 100);
  CHECK(s.exchange(0).rows_total == 5);
  CHECK(s.flags.eos_flush == EosFlush::serial);
  CHECK(error_of(minimal(), {{"exchanges[3].rows_total", "5"}}).find("exchanges[3]") != std::string::npos);
}

TEST_CASE("errors name the file and the JSON path", "[unit][scenario]") {
  json doc = minimal();
  doc["exchanges"][0]["partitioning"] = "HASH";
  const std::string e = error_of(doc);
  CHECK(e.find("t.json: exchanges[0].partitioning: expected one of") != std::string::npos);
  doc = minimal();
  doc["exchanges"][0]["rowz"] = 1;
  CHECK(error_of(doc).find("exchanges[0].rowz: unknown key") != std::string::npos);
}

TEST_CASE("the committed JSON Schema is the one the table generates", "[unit][scenario]") {
  std::ifstream in(EXSIM_SOURCE_DIR "/scenarios/scenario.schema.json");
  REQUIRE(in);
  std::stringstream buf;
  buf << in.rdbuf();
  INFO("regenerate with: tools/parameter_docs.py (the schema, parameters.json and the scenario README's tables)");
  CHECK(json::parse(buf.str()) == scenario_schema());
}

// Values are checked as 64-bit numbers against the table, then narrowed to the types the model
// keeps: a bound the table lacks, or one beyond an int, would let a value wrap after its check.
TEST_CASE("every integer parameter is bounded to what its reader keeps", "[unit][scenario]") {
  // Read as int64_t (or uint64_t: the seed, which alone has no upper bound).
  const std::set<std::string> wide{"data_stream_sender_buffer_size", "exchg_node_buffer_size_bytes",
                                   "rows_total", "scan_ranges", "work_rows", "scan_rows", "data_bytes_total",
                                   "prefetchMaxInFlightBytes", "part_bytes", "footer_bytes"};
  for (const ParamSpec& p : parameter_table()) {
    if (p.type != ParamType::integer) continue;
    INFO(to_string(p.section) << "." << p.name);
    REQUIRE(p.min.has_value());
    if (p.name == "seed") continue;
    REQUIRE(p.max.has_value());
    CHECK(*p.max <= (wide.count(p.name) ? 9.2e18 : static_cast<double>(std::numeric_limits<int>::max())));
  }
}

TEST_CASE("an integer past an int's range is refused, not wrapped", "[unit][scenario]") {
  json doc = minimal();
  doc["exchanges"][0]["faults"] = json::array({{{"kind", "receiver_close"}, {"at_s", 0}, {"receiver", 4294967296}}});
  CHECK(error_of(doc).find("exchanges[0].faults[0].receiver: expected an integer in [0, 1023999], got 4294967296") !=
        std::string::npos);
  doc["exchanges"][0]["faults"][0]["receiver"] = 0;
  CHECK(error_of(doc, {{"exchanges[0].faults[0].receiver", "9223372036854775807"}})
            .find("got 9223372036854775807") != std::string::npos);
  json seeds = minimal();
  seeds["seed"] = 18446744073709551615ULL;
  CHECK(build_scenario(seeds, "t.json").seed == 18446744073709551615ULL);
  seeds["seed"] = 9007199254740993ULL; // 2^53 + 1: a double would make it 2^53
  CHECK(build_scenario(seeds, "t.json").seed == 9007199254740993ULL);
}

namespace {
// A scan in fragment F1 filtered by a join in fragment F0.
json filtered(json filter) {
  return {{"schema_version", 2},
          {"queries",
           {{{"name", "q50"},
             {"fragments",
              {{{"id", "F0"},
                {"root",
                 {{"op", "hash_join"},
                  {"id", "12"},
                  {"rows", 10},
                  {"probe", {{"op", "scan"}, {"id", "1"}, {"rows", 10}}},
                  {"build", {{"op", "scan"}, {"id", "2"}, {"rows", 10}}}}},
                {"sink", {{"exchange", "x"}}}},
               {{"id", "F1"},
                {"root",
                 {{"op", "hash_join"},
                  {"id", "13"},
                  {"rows", 10},
                  {"probe", {{"op", "scan"}, {"id", "3"}, {"rows", 10}, {"runtime_filters", {filter}}}},
                  {"build", {{"op", "exchange"}, {"id", "4"}, {"exchange", "x"}}}}},
                {"sink", {{"result", true}}}}}},
             {"exchanges", {{{"id", "x"}, {"partitioning", "UNPARTITIONED"}}}}}}}};
}
} // namespace

TEST_CASE("runtime filters: the join is resolved in any fragment, keep and keys are checked", "[unit][scenario]") {
  const Scenario sc = build_scenario(filtered({{"join", "12"}, {"keep", 0.4}}), "t.json");
  const OpSpec& scan = sc.queries.at(0).fragments.at(1).ops.at(1);
  REQUIRE(scan.runtime_filters.size() == 1);
  CHECK(scan.runtime_filters[0].fragment == 0);
  CHECK(scan.runtime_filters[0].op == 0);
  CHECK(scan.runtime_filters[0].keep == 0.4);
  // The flags' defaults (the settings list them only where set: tests/unit/output/test_settings.cpp).
  CHECK(sc.flags.runtime_filter_wait_time_ms == 1000);
  CHECK(sc.flags.runtime_bloom_filter_size == 1048576);

  const std::string at = "t.json: queries[0].fragments[1].root.probe.runtime_filters[0]";
  CHECK(error_of(filtered({{"join", "99"}, {"keep", 0.4}})).find(at + ".join: no hash_join (or nested_loop_join) with id "
                                                                     "\"99\" in query q50") != std::string::npos);
  CHECK(error_of(filtered({{"join", "3"}, {"keep", 0.4}})).find(at + ".join: no hash_join") != std::string::npos);
  CHECK(error_of(filtered({{"join", "12"}, {"keep", 0}})).find(at + ".keep: expected a fraction in (0, 1]") !=
        std::string::npos);
  CHECK(error_of(filtered({{"join", "12"}, {"keep", 1.5}})).find(at + ".keep: expected a fraction in (0, 1]") !=
        std::string::npos);
  CHECK(error_of(filtered({{"join", "12"}})).find(at + ".keep: required") != std::string::npos);
  CHECK(error_of(filtered({{"join", "12"}, {"keep", 0.5}, {"kind", "bloom"}})).find(at + ".kind: unknown key") !=
        std::string::npos);
  json own = filtered({{"join", "12"}, {"keep", 0.5}});
  own["queries"][0]["fragments"][0]["root"]["build"]["runtime_filters"] = {{{"join", "12"}, {"keep", 0.5}}};
  CHECK(error_of(own).find("queries[0].fragments[0].root.build.runtime_filters[0].join: the scan is on the build "
                           "side of join \"12\"") != std::string::npos);
  json doc = filtered({{"join", "12"}, {"keep", 0.5}});
  doc["queries"][0]["fragments"][0]["root"]["probe"]["runtime_filters"] = json::array();
  doc["queries"][0]["fragments"][0]["root"]["runtime_filters"] = json::array();
  CHECK(error_of(doc).find("queries[0].fragments[0].root.runtime_filters: not used by a hash_join operator") !=
        std::string::npos);
}
