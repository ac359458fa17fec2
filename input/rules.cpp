#include "input/rules.hpp"

#include "input/check.hpp"
#include "input/parameters.hpp"
#include "input/suggest.hpp"
#include "models/exchange/batch.hpp"
#include "models/exchange/partitioning.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <optional>

namespace exsim {

using nlohmann::json;

nlohmann::json rules_json() {
  json kinds = json::array();
  for (const PartitioningTraits& t : partitioning_table())
    kinds.push_back({{"name", t.name},
                     {"routes_rows", t.routes_rows},
                     {"every_receiver", t.every_receiver},
                     {"configured_k", t.configured_k},
                     {"send_mode",
                      {{"one_channel", to_string(send_mode(t.kind, 1))},
                       {"several_channels", to_string(send_mode(t.kind, 2))}}}});
  return {{"partitionings", kinds},
          {"batch",
           {{"collector_max_tuple_bytes", kCollectorMaxTupleBytes},
            {"tuple_offset_bytes", kTupleOffsetBytes},
            {"tuple_pointer_bytes", kTuplePointerBytes}}}};
}

namespace {

// Whether `v` passes the check of the integer row `p`; when not, `err` says so at `path`.
bool integer_ok(const ParamSpec& p, const json& v, const std::string& path, Errors& err) {
  if (is_integral(v) && in_range(p, v.get<double>())) return true;
  check_value(p, v, path, err);
  return false;
}

// One input of collector-rows, each value checked as the scenario key it stands for: the buffer as
// data_stream_sender_buffer_size, the fixed bytes as fixed_row_bytes, the whole row as
// fixed_row_bytes + var_row_bytes. nullopt when a value fails.
std::optional<BatchShape> collector_input(const json& in, const std::string& path, Errors& err) {
  if (!in.is_array() || in.size() != 3) {
    err.add(path, fmt::format("expected [buffer_bytes, fixed_row_bytes, row_bytes], got {}", show(in)));
    return std::nullopt;
  }
  const ParamSpec& var = *find_param(Section::exchange, "var_row_bytes");
  const bool buffer_ok =
      integer_ok(*find_param(Section::flags, "data_stream_sender_buffer_size"), in[0], path + "[0]", err);
  const bool fixed_ok =
      integer_ok(*find_param(Section::exchange, "fixed_row_bytes"), in[1], path + "[1]", err);
  if (!is_integral(in[2])) {
    err.add(path + "[2]", fmt::format("expected an integer, the whole row's bytes, got {}", show(in[2])));
    return std::nullopt;
  }
  if (!fixed_ok) return std::nullopt;
  const int64_t fixed = in[1].get<int64_t>();
  if (!in_range(var, in[2].get<double>() - static_cast<double>(fixed))) {
    err.add(path + "[2]",
            fmt::format("expected the whole row's bytes, an integer in [{}, {}] (fixed_row_bytes "
                        "plus var_row_bytes, {}), got {}",
                        fixed, fixed + static_cast<int64_t>(*var.max), describe_expectation(var),
                        show(in[2])));
    return std::nullopt;
  }
  if (!buffer_ok) return std::nullopt;
  BatchShape shape = from_defaults<BatchShape>(Section::exchange);
  shape.fixed_row_bytes = fixed;
  shape.var_row_bytes = in[2].get<int64_t>() - fixed;
  return shape;
}

// [rows of a hash sender's collector] for [[buffer_bytes, fixed_row_bytes, row_bytes], ...].
json collector_rows(const json& inputs, Errors& err) {
  json out = json::array();
  for (size_t i = 0; i < inputs.size(); ++i) {
    const std::string path = fmt::format("[{}]", i);
    const std::optional<BatchShape> shape = collector_input(inputs[i], path, err);
    if (shape) out.push_back(collector_capacity_rows(inputs[i][0].get<int64_t>(), *shape));
  }
  return out;
}

struct Rule {
  const char* name;
  const char* input; // what one input is, for messages
  json (*answer)(const json& inputs, Errors& err);
};

const std::vector<Rule>& rule_table() {
  static const std::vector<Rule> table{
      {"collector-rows", "[buffer_bytes, fixed_row_bytes, row_bytes]", collector_rows},
  };
  return table;
}

} // namespace

std::vector<std::string> rule_names() {
  std::vector<std::string> names;
  for (const Rule& r : rule_table())
    names.push_back(r.name);
  return names;
}

nlohmann::json answer_rule(const std::string& name, const nlohmann::json& inputs, const std::string& label) {
  for (const Rule& r : rule_table()) {
    if (name != r.name) continue;
    Errors err(label);
    if (!inputs.is_array()) {
      err.add("", fmt::format("expected a JSON array of inputs {}, got {}", r.input, json_kind(inputs)));
      err.throw_if_any();
    }
    json answers = r.answer(inputs, err);
    err.throw_if_any();
    return answers;
  }
  throw InputError(fmt::format("rules {}: unknown rule;{} rules: {}", name, did_you_mean(name, rule_names()),
                               fmt::join(rule_names(), ", ")));
}

} // namespace exsim
