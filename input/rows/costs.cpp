#include "input/param_rows.hpp"


#include <fmt/format.h>

namespace exsim::param_rows {

void add_costs_rows(std::vector<ParamSpec>& t) {
  using S = Section;
  using T = ParamType;
  // Costs (ns of one hardware thread running alone on a core).
  struct OperatorCost {
    const char* name;
    double OperatorCosts::*member;
    const char* what;
  };
  for (auto [name, member, what] : std::vector<OperatorCost>{
           {"scan_ns_per_row", &OperatorCosts::scan_ns_per_row,
            "CPU per row a scan reads (before its predicates)"},
           {"join_build_ns_per_row", &OperatorCosts::join_build_ns_per_row,
            "CPU per row inserted into a join's hash table"},
           {"join_probe_ns_per_row", &OperatorCosts::join_probe_ns_per_row,
            "CPU per probe-side row of a join"},
           {"aggregate_ns_per_row", &OperatorCosts::aggregate_ns_per_row,
            "CPU per input row of an aggregation (streaming or not)"},
           {"sort_ns_per_row", &OperatorCosts::sort_ns_per_row, "CPU per input row of a sort or top-n"},
           {"analytic_ns_per_row", &OperatorCosts::analytic_ns_per_row,
            "CPU per input row of an analytic evaluation"},
           {"other_ns_per_row", &OperatorCosts::other_ns_per_row,
            "CPU per input row of select, union, limit"}})
    t.push_back(binds(only_since(P(S::costs, name, T::number, "ns", 0, 0, 1e9, what), 2), member));
  t.push_back(binds(only_since(P(S::costs, "query_startup_s", T::number, "s", 0, 0, 1e6,
                                 "time of every query before its fragments start (planning, admission, "
                                 "coordinator start-up); a delay, not CPU on the executors"),
                               2),
                    &OperatorCosts::query_startup_s));
  t.push_back(binds(only_since(P(S::costs, "codegen_s_per_fragment", T::number, "s", 0, 0, 1e6,
                                 "CPU time once per fragment per executor that runs it, before its instances "
                                 "there start (code generation)"),
                               2),
                    &OperatorCosts::codegen_s_per_fragment));
}

} // namespace exsim::param_rows
