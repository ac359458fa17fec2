// The results field table (models/run_fields.hpp): every member of the run's structs is read by
// exactly one row, so that the copy between query processes carries it and the documents name it;
// rows are unique in their section and say their unit.
#include "aggregate_members.hpp"
#include "models/run_fields.hpp"
#include "output/fields.hpp"

#include <catch2/catch.hpp>

#include <set>
#include <string>

using namespace exsim;

namespace {

template <class T> void check_every_member_read_once(const char* name) {
  INFO(name << ": each member its row; the table's rows read " << members_read<T>().size() << " of its "
            << test::member_count<T>() << " members");
  std::set<size_t> offsets;
  for (const MemberRead<T>& m : members_read<T>()) {
    INFO("read twice: " << m.member);
    CHECK(offsets.insert(std::visit([](auto ptr) { return test::offset_of(ptr); }, m.ptr)).second);
  }
  CHECK(offsets.size() == test::member_count<T>());
}

} // namespace

TEST_CASE("every member of the run's structs is read by exactly one field row", "[unit][fields]") {
  check_every_member_read_once<SenderCounters>("SenderCounters");
  check_every_member_read_once<ReceiverCounters>("ReceiverCounters");
  check_every_member_read_once<ExchangeRun>("ExchangeRun");
  check_every_member_read_once<FragmentStats>("FragmentStats");
  check_every_member_read_once<QueryRun>("QueryRun");
}

TEST_CASE("field rows are unique in their section, explained, and a time says its unit", "[unit][fields]") {
  std::set<std::string> seen;
  for (const FieldSpec& f : field_table()) {
    INFO(to_string(f.section) << "." << f.name);
    CHECK(seen.insert(std::string(to_string(f.section)) + "." + f.name).second);
    CHECK(!f.meaning.empty());
    if (f.name.size() > 2 && f.name.ends_with("_s")) CHECK(f.unit == "s");
    if (f.workload_clock) CHECK((f.unit == "s" && f.type == FieldType::number && f.reads.size() == 1));
    if (!f.choices.empty()) CHECK(f.type == FieldType::string);
  }
  // The breakdown has a row per part of the critical path, labelled, in the parts' order.
  const auto parts = fields_of(FieldSection::breakdown);
  REQUIRE(parts.size() == kPathParts);
  for (size_t i = 0; i < kPathParts; ++i) {
    CHECK(parts[i]->name == path_part_key(static_cast<PathPart>(i)));
    CHECK(!parts[i]->label.empty());
  }
}

TEST_CASE("exsim fields names each member a row reads", "[unit][fields]") {
  const nlohmann::json doc = fields_json();
  REQUIRE(doc.at("fields").size() == field_table().size());
  bool found = false;
  for (const nlohmann::json& row : doc.at("fields"))
    if (row.at("path") == "exchanges[].sender_instances[]" && row.at("name") == "InactiveTotalTime_s") {
      CHECK(row.at("reads") == nlohmann::json::array({"SenderCounters::InactiveTotalTime"}));
      CHECK(row.at("unit") == "s");
      found = true;
    }
  CHECK(found);
  CHECK(fields_text().find("exchanges[].receiver_instances[]:") != std::string::npos);
}
