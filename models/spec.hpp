// The typed scenario the models run: the cluster, Impala's flags, CPU costs and the queries with
// their fragments, operators and exchanges, every default filled in and every check passed
// (input/scenario.hpp builds them from a file). A key's default comes from the parameter table
// (input/rows/, gathered by input/parameters.cpp), whose rows name the members they set, never from these declarations;
// an initialiser here is the starting value of a member the parser sets itself (a reference
// resolved to an index, the tree, a value taken from another section).
// This header gathers them from their families: the daemons' settings (config/settings.hpp), an
// exchange (exchange/exchange_spec.hpp) and a query (query/query_spec.hpp). The layers above
// (input/, sim/, output/) include it; no family does.
#pragma once

#include "models/config/settings.hpp"
#include "models/exchange/exchange_spec.hpp"
#include "models/query/query_spec.hpp"
