// `exsim rules`: a rule answered for the inputs a program gives is the model's own function, and
// each input is checked as the scenario keys it stands for.
#include "input/input_error.hpp"
#include "input/rules.hpp"
#include "models/exchange/batch.hpp"

#include <catch2/catch.hpp>

using namespace exsim;
using nlohmann::json;

TEST_CASE("collector-rows answers collector_capacity_rows for each input, in order", "[unit][rules]") {
  const json answers = answer_rule(
      "collector-rows", json::parse("[[16384, 93, 93], [1048576, 8, 200008], [16384, 100000, 100000]]"), "t");
  // 16384 / 93 = 176: the buffer binds; 8 MiB / 200008 = 41 (the buffer alone allows 131072): the
  // tuple-data flush binds; a row wider than the buffer: at least one.
  CHECK(answers == json::parse("[176, 41, 1]"));
  CHECK(answers[1].get<int64_t>() == collector_capacity_rows(1048576, BatchShape{8, 200000, 1, 1.0}));
  CHECK(answer_rule("collector-rows", json::array(), "t") == json::array());
}

TEST_CASE("collector-rows refuses inputs a scenario would refuse, naming each", "[unit][rules]") {
  auto message = [](const char* inputs) {
    try {
      answer_rule("collector-rows", json::parse(inputs), "in:2");
    } catch (const InputError& e) {
      return std::string(e.what());
    }
    return std::string("(accepted)");
  };
  CHECK(message("{}") == "in:2: (top level): expected a JSON array of inputs [buffer_bytes, fixed_row_bytes, "
                         "row_bytes], got an object");
  CHECK(message("[[16384, 9]]") ==
        "in:2: [0]: expected [buffer_bytes, fixed_row_bytes, row_bytes], got [16384,9]");
  CHECK(message("[[16384, 9, 9], [-1, 9.5, 9]]") ==
        "in:2: [1][0]: expected an integer in [1, 2147483648], got -1\n"
        "in:2: [1][1]: expected an integer in [1, 16777216], got 9.5");
  CHECK(message("[[16384, 9, 5]]").find("in:2: [0][2]: expected the whole row's bytes, an integer in [9, ") ==
        0);
  CHECK_THROWS_WITH(answer_rule("colector-rows", json::array(), "t"),
                    Catch::Contains("colector-rows: unknown rule; did you mean collector-rows?"));
}
