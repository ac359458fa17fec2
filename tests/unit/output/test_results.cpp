// The results document from a scenario and a run's plain values, no engine: times placed on the
// workload's clock, query status, the summary's hash figures.
#include "input/scenario.hpp"
#include "models/run.hpp"
#include "output/fields.hpp"
#include "output/results.hpp"

#include <catch2/catch.hpp>

#include <set>
#include <string>

using namespace exsim;
using nlohmann::json;

namespace {

// Two exchange-only queries run one after the other: q1 (a HASH_PARTITIONED exchange) and q2 (a
// RANDOM one).
Scenario two_queries() {
  return build_scenario(json::parse(R"({"schema_version": 1, "query_order": "sequential", "exchanges": [
      {"id": "a", "query": "q1", "partitioning": "HASH_PARTITIONED", "rows_total": 1000},
      {"id": "b", "query": "q2", "partitioning": "RANDOM", "rows_total": 1000}]})"),
                        "t.json");
}

ExchangeRun exchange(double start, double end, int64_t rpcs, int64_t bytes, double blocked) {
  ExchangeRun x;
  x.start_s = start;
  x.end_s = end;
  SenderCounters s;
  s.TransmitDataRpcs = rpcs;
  s.TotalBytesSent = bytes;
  s.InactiveTotalTime = blocked;
  s.end_s = end;
  x.senders = {s};
  ReceiverCounters r;
  r.end_s = end;
  x.receivers = {r};
  return x;
}

std::set<std::string> keys(const json& j) {
  std::set<std::string> out;
  for (const auto& [key, value] : j.items())
    out.insert(key);
  return out;
}

// The rows of a section every entry has (models/run_fields.cpp).
std::set<std::string> rows_always(FieldSection s) {
  std::set<std::string> out;
  for (const FieldSpec* f : fields_of(s))
    if (f->when.empty()) out.insert(f->name);
  return out;
}

} // namespace

TEST_CASE("times go on the workload's clock, spans stay the run's own", "[unit][results]") {
  const Scenario sc = two_queries();
  WorkloadRun run;
  run.queries.resize(2);
  run.queries[0].exchanges = {exchange(0.25, 1.0, 10, 1000, 0.5)};
  // q2 was simulated alone from 0 and starts when q1 ended (1.0 s).
  run.queries[1].exchanges = {exchange(0.25, 0.75, 4, 800, 0.125)};
  run.queries[1].clock_offset_s = 1.0;
  const json doc = results_document(sc, run);
  const json& b = doc.at("exchanges").at(1);
  CHECK(b.at("start_s").get<double>() == 1.25);
  CHECK(b.at("end_s").get<double>() == 1.75);
  CHECK(b.at("duration_s").get<double>() == 0.5);
  CHECK(b.at("sender_instances").at(0).at("end_s").get<double>() == 1.75);
  CHECK(b.at("receiver_instances").at(0).at("end_s").get<double>() == 1.75);
  // An exchange-only query runs for the span of its exchanges; its path counts from its first one.
  const json& q2 = doc.at("queries").at(1);
  CHECK(q2.at("start_s").get<double>() == 1.25);
  CHECK(q2.at("end_s").get<double>() == 1.75);
  CHECK(q2.at("runtime_s").get<double>() == 0.5);
  CHECK(q2.at("breakdown").at("startup_s").get<double>() == -0.25);
  const json& s = doc.at("summary");
  CHECK(s.at("makespan_s").get<double>() == 1.75);
  CHECK(s.at("runtime_s_total").get<double>() == 0.75 + 0.5);
  // Hash figures: exchange a alone (b is RANDOM); it did not push back.
  CHECK(s.at("hash_rpcs").get<int64_t>() == 10);
  CHECK(s.at("hash_mean_rpc_bytes").get<double>() == 100.0);
  CHECK(s.at("nonpushback_hash_exchanges").get<int64_t>() == 1);
  CHECK(s.at("nonpushback_slowest_sender_blocked_s_total").get<double>() == 0.5);
  CHECK(s.at("slowest_sender_blocked_s_total").get<double>() == 0.625);
  CHECK(s.at("rpcs").get<int64_t>() == 14);
}

TEST_CASE("a query takes the status of its first exchange that did not end well", "[unit][results]") {
  const Scenario sc = two_queries();
  WorkloadRun run;
  run.queries.resize(2);
  run.queries[0].exchanges = {exchange(0, 1, 1, 1, 0)};
  run.queries[0].exchanges[0].status = ExchangeStatus::failed;
  run.queries[0].exchanges[0].error = "injected";
  run.queries[1].exchanges = {exchange(0, 1, 1, 1, 0)};
  const json doc = results_document(sc, run);
  CHECK(doc.at("queries").at(0).at("status") == "failed");
  CHECK(doc.at("queries").at(0).at("error") == "injected");
  CHECK(doc.at("queries").at(1).at("status") == "ok");
  CHECK(doc.at("summary").at("exchanges_failed").get<int64_t>() == 1);
}

TEST_CASE("each object of the results holds its section's rows of the field table, no other key",
          "[unit][results][fields]") {
  const Scenario sc = two_queries();
  WorkloadRun run;
  run.queries.resize(2);
  run.queries[0].exchanges = {exchange(0.25, 1.0, 10, 1000, 0.5)};
  run.queries[1].exchanges = {exchange(0.25, 0.75, 4, 800, 0.125)};
  const json doc = results_document(sc, run);
  CHECK(keys(doc) == rows_always(FieldSection::document));
  CHECK(keys(doc.at("scenario")) == rows_always(FieldSection::scenario));
  const json& x = doc.at("exchanges").at(0);
  CHECK(keys(x) == rows_always(FieldSection::exchange));
  CHECK(keys(x.at("sender_instances").at(0)) == rows_always(FieldSection::sender));
  CHECK(keys(x.at("receiver_instances").at(0)) == rows_always(FieldSection::receiver));
  const json& q = doc.at("queries").at(0); // an exchange-only query: no fragments
  CHECK(keys(q) == rows_always(FieldSection::query));
  CHECK(keys(q.at("breakdown")) == rows_always(FieldSection::breakdown));
  CHECK(keys(doc.at("summary")) == rows_always(FieldSection::summary));
  CHECK(keys(doc.at("summary").at("breakdown_s_total")) == rows_always(FieldSection::breakdown));
}
