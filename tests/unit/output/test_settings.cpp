// The results' settings are written from the bound structs by the parameter table's rows
// (output/settings.cpp): every row of the scenario-wide sections appears with its member's value,
// a listed_when_set row only where a file sets it, and the bytes are those of the file's object
// with the rows' defaults filled in (what the results held before the echo was built from the
// bindings), however the file spells a value.
#include "input/check.hpp"
#include "input/parameters.hpp"
#include "input/scenario.hpp"
#include "output/settings.hpp"

#include <catch2/catch.hpp>

#include <set>
#include <string>
#include <variant>
#include <vector>

using namespace exsim;
using nlohmann::json;

namespace {

json minimal(int version) {
  return {{"schema_version", version},
          {"exchanges", {{{"id", "x"}, {"partitioning", "HASH_PARTITIONED"}, {"rows_total", 1000}}}}};
}

// A section's object in the file with the rows' defaults filled in and integral floats of integer
// rows stored as integers: the settings as the parser used to copy them from the file.
json file_with_defaults(Section s, const json& doc, const char* key, int version) {
  json obj = doc.value(key, json::object());
  if (s == Section::cluster && version == 1) {
    if (!obj.contains("threads_per_core")) obj["threads_per_core"] = 1;
    if (!obj.contains("cores_per_executor")) obj["cores_per_executor"] = 16;
  }
  obj = with_defaults(s, obj, version);
  normalise_integers(s, obj, version);
  return obj;
}

struct SectionCase {
  Section section;
  const char* key;
};
constexpr SectionCase kSections[] = {
    {Section::cluster, "cluster"}, {Section::flags, "flags"}, {Section::costs, "costs"}};

// The row's member of the scenario's struct for that section, as the row's JSON value.
json bound_value(const ParamSpec& p, const Scenario& sc) {
  if (const auto* b = std::get_if<FieldBinding<ClusterSpec>>(&p.binds)) return b->get(sc.cluster);
  if (const auto* b = std::get_if<FieldBinding<Flags>>(&p.binds)) return b->get(sc.flags);
  if (const auto* b = std::get_if<FieldBinding<OperatorCosts>>(&p.binds)) return b->get(sc.costs);
  return nullptr;
}

// Values of the row other than its default, in each spelling a file may use.
std::vector<json> other_values(const ParamSpec& p) {
  switch (p.type) {
  case ParamType::boolean:
    return {!p.default_value.get<bool>()};
  case ParamType::enumeration: {
    std::vector<json> out;
    for (const std::string& c : p.choices)
      if (c != p.default_value) out.push_back(c);
    return out;
  }
  case ParamType::integer: {
    const int64_t v = p.default_value.get<int64_t>() + 1 <= p.max.value_or(1e18)
                          ? p.default_value.get<int64_t>() + 1
                          : p.default_value.get<int64_t>() - 1;
    return {v, static_cast<double>(v)}; // 17 and 17.0
  }
  default: { // a number
    const double d = p.default_value.get<double>();
    const double whole = d + 1 <= p.max.value_or(1e18) ? d + 1 : 0;
    const double part = d + 0.25 <= p.max.value_or(1e18) ? d + 0.25 : d / 2;
    return {static_cast<int64_t>(whole), whole, part}; // 391, 391.0, 390.25
  }
  }
}

} // namespace

TEST_CASE("every row of cluster, flags and costs binds a member, so the settings echo it",
          "[unit][settings]") {
  for (const SectionCase& s : kSections)
    for (const ParamSpec* p : params_of(s.section)) {
      INFO(s.key << "." << p->name);
      CHECK_FALSE(std::holds_alternative<std::monostate>(p->binds));
    }
}

TEST_CASE("the settings hold each bound member, and a listed_when_set row only where the file sets it",
          "[unit][settings]") {
  for (int version : {1, 2}) {
    const Scenario sc = build_scenario(minimal(version), "t.json");
    const json echo = settings_echo(sc);
    CHECK(echo.at("schema_version") == version);
    CHECK(echo.at("seed") == 1);
    CHECK(echo.at("query_order") == "concurrent");
    CHECK(echo.contains("costs") == (version == 2));
    for (const SectionCase& s : kSections) {
      if (version == 1 && s.section == Section::costs) continue;
      for (const ParamSpec* p : params_of(s.section, version)) {
        INFO("schema " << version << ": " << s.key << "." << p->name);
        CHECK(echo.at(s.key).contains(p->name) == !p->listed_when_set);
        if (!p->listed_when_set) CHECK(echo.at(s.key).at(p->name) == bound_value(*p, sc));
      }
    }
    CHECK(echo.at("cluster").at("cores_per_executor") == (version == 1 ? 16 : 8)); // schema 1's defaults
    CHECK(echo.at("cluster").at("threads_per_core") == (version == 1 ? 1 : 2));
  }
  json doc = minimal(2);
  doc["flags"] = {{"runtime_filter_wait_time_ms", 0}};
  const json echo = settings_echo(build_scenario(doc, "t.json"));
  CHECK(echo.at("flags").at("runtime_filter_wait_time_ms") == 0);
  CHECK_FALSE(echo.at("flags").contains("runtime_filter_mode"));
}

TEST_CASE("the settings keep the bytes of the file's object with the defaults filled in",
          "[unit][settings]") {
  for (int version : {1, 2})
    for (const SectionCase& s : kSections)
      for (const ParamSpec* p : params_of(s.section, version))
        for (const json& value : other_values(*p)) {
          json doc = minimal(version);
          doc[s.key][p->name] = value;
          if (p->name == "rpcs_in_flight_per_channel") doc[s.key]["rpcs_in_flight_max"] = 64; // K <= K_max
          const json echo = settings_echo(build_scenario(doc, "t.json"));
          const json expected = file_with_defaults(s.section, doc, s.key, version);
          INFO("schema " << version << ": " << s.key << "." << p->name << " = " << value.dump());
          CHECK(echo.at(s.key).dump() == expected.dump());
          CHECK(echo.at(s.key) == expected); // and the value as bound
        }
}

TEST_CASE("an exchange's flags in the settings: the scenario's with its own over them", "[unit][settings]") {
  json doc = minimal(2);
  doc["flags"] = {{"batch_size", 2048.0}, {"rpcs_in_flight_max", 4}};
  doc["exchanges"][0]["flags"] = {{"rpcs_in_flight_per_channel", 2}, {"rpcs_in_flight_series", true}};
  const json echo = settings_echo(build_scenario(doc, "t.json"));
  json expected = with_defaults(Section::flags, doc["flags"]);
  for (const auto& [k, v] : doc["exchanges"][0]["flags"].items())
    expected[k] = v;
  normalise_integers(Section::flags, expected);
  CHECK(echo.at("exchanges").at(0).at("flags").dump() == expected.dump());
  CHECK_FALSE(echo.at("flags").contains("rpcs_in_flight_series"));
}

TEST_CASE("an exchange's settings: each row from its member as the file spells it", "[unit][settings]") {
  // Rows the parser resolves (the placement's zeros, the fanout, the weights) are written as they
  // run, not as spelled: the next test case.
  const std::set<std::string> resolved = {"sender_executors", "receiver_executors", "sender_instances_per_executor",
                                          "receiver_instances_per_executor", "directed_fanout"};
  int checked = 0;
  for (int version : {1, 2})
    for (const ParamSpec* p : params_of(Section::exchange, version)) {
      if (std::holds_alternative<std::monostate>(p->binds) || resolved.count(p->name) > 0) continue;
      if ((p->type != ParamType::number && p->type != ParamType::integer) || p->default_value.is_null()) continue;
      for (const json& value : other_values(*p)) {
        json doc = minimal(version);
        doc["exchanges"][0][p->name] = value;
        Scenario sc;
        try {
          sc = build_scenario(doc, "t.json");
        } catch (const InputError&) {
          continue; // a value the row refuses (the checks have their own tests)
        }
        const json echo = settings_echo(sc).at("exchanges").at(0);
        // An integer row is stored as an integer however written; a number row keeps its spelling.
        const json spelled = p->type == ParamType::integer ? json(value.get<int64_t>()) : value;
        INFO("schema " << version << ": exchanges[0]." << p->name << " = " << value.dump());
        CHECK(echo.at(p->name).dump() == spelled.dump());
        ++checked;
      }
    }
  CHECK(checked >= 30);
}

TEST_CASE("an exchange's settings: what the parser resolved, its faults, and the rows no member binds as written",
          "[unit][settings]") {
  json doc = minimal(2);
  doc["cluster"] = {{"executors", 4}};
  doc["exchanges"][0]["fixed_row_bytes"] = 32;
  doc["exchanges"].push_back({{"id", "d"},
                              {"partitioning", "DIRECTED"},
                              {"rows_total", 5e3},
                              {"source", "hand-made"},
                              {"after", {"x"}},
                              {"receiver_executors", 2},
                              {"receiver_weights", {1, 3}},
                              {"expected", {{"rpcs", 10.0}, {"rows", 7}}},
                              {"faults", {{{"kind", "rpc_error"}, {"at_s", 1.0}, {"sender", 0}, {"receiver", 1}}}}});
  const json echo = settings_echo(build_scenario(doc, "t.json")).at("exchanges");
  REQUIRE(echo.size() == 2);
  const json& x = echo[0];
  CHECK(x.at("fixed_row_bytes") == 32);
  CHECK(x.at("directed_fanout") == 1); // only DIRECTED sends a row to several receivers
  CHECK(x.at("sender_executors") == 4); // 0: every executor
  CHECK(x.at("sender_instances_per_executor") == 1); // 0: max(1, mt_dop)
  CHECK(x.at("receiver_weights").dump() == "[1.0,1.0,1.0,1.0]");
  CHECK(x.at("source") == "");
  CHECK(x.at("after") == json::array());
  CHECK(x.at("expected") == json::object());
  CHECK(x.at("faults") == json::array());
  CHECK(x.at("rpcs_in_flight_per_channel_effective") == 1);
  const json& d = echo[1];
  CHECK(d.at("rows_total").dump() == "5000");
  CHECK(d.at("directed_fanout") == 2);
  CHECK(d.at("receiver_executors") == 2);
  CHECK(d.at("receiver_weights").dump() == "[1.0,3.0]");
  CHECK(d.at("source") == "hand-made");
  CHECK(d.at("after") == json::array({"x"}));
  CHECK(d.at("expected").dump() == R"({"rows":7,"rpcs":10.0})");
  CHECK(d.at("faults").dump() == R"([{"at_s":1.0,"kind":"rpc_error","receiver":1,"sender":0}])");
  CHECK_FALSE(d.contains("receiver_consumer_slowdown")); // a derived row without a default: where given
}

TEST_CASE("a whole query's settings: the plan it runs, its placement, and only its own flags and costs",
          "[unit][settings]") {
  json doc = {{"schema_version", 2},
              {"flags", {{"batch_size", 2048}}},
              {"queries",
               {{{"name", "q"},
                 {"flags", {{"rpcs_in_flight_per_channel", 2}, {"rpcs_in_flight_max", 2.0}}},
                 {"costs", {{"scan_ns_per_row", 40}}},
                 {"fragments",
                  {{{"id", "F1"}, {"root", {{"op", "scan"}, {"id", "1"}, {"rows", 10}}}, {"sink", {{"exchange", "x"}}}},
                   {{"id", "F0"},
                    {"executors", 1},
                    {"root", {{"op", "exchange"}, {"id", "2"}, {"exchange", "x"}}},
                    {"sink", {{"result", true}}}}}},
                 {"exchanges", {{{"id", "x"}, {"partitioning", "HASH_PARTITIONED"}}}}},
                {{"name", "plain"},
                 {"fragments", {{{"id", "F0"}, {"root", {{"op", "scan"}, {"id", "1"}, {"rows", 10}}}, {"sink", {{"result", true}}}}}},
                 {"exchanges", json::array()}}}}};
  const json echo = settings_echo(build_scenario(doc, "t.json")).at("queries");
  REQUIRE(echo.size() == 2);
  const json& q = echo[0];
  CHECK(q.at("name") == "q");
  CHECK(q.at("plan") == "fragments");
  CHECK(q.at("flags").dump() == R"({"rpcs_in_flight_max":2,"rpcs_in_flight_per_channel":2})");
  CHECK(q.at("costs").dump() == R"({"scan_ns_per_row":40})");
  CHECK(q.at("fragments").at(1).at("executors") == 1);
  CHECK(q.at("exchanges").at(0).at("k") == 2);
  CHECK(q.at("exchanges").at(0).at("receivers") == 1);
  CHECK_FALSE(echo[1].contains("flags"));
  CHECK_FALSE(echo[1].contains("costs"));
}
