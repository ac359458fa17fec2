#include "input/rules.hpp"

#include "models/exchange/batch.hpp"
#include "models/exchange/partitioning.hpp"

namespace exsim {

nlohmann::json rules_json() {
  nlohmann::json kinds = nlohmann::json::array();
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

} // namespace exsim
