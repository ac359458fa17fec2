// A whole query's operator trees (the query form's `root`s): each operator's keys read and
// checked, its inputs parsed in turn, and the references by id it holds (its exchange, the joins
// of its runtime filters, a build in another fragment) recorded in a QueryParse, resolved by
// input/query_form.cpp once the plan is read.
//   int root = parse_op(fragment_json.at("root"), path + ".root", fi, fragment, qp, query, err, version);
#pragma once

#include "input/check.hpp"
#include "models/spec.hpp"

#include <nlohmann/json.hpp>

#include <map>
#include <string>
#include <utility>
#include <vector>

namespace exsim {

// What parsing one plan of a query records to resolve and check once all of it is read.
struct QueryParse {
  std::string path; // of the plan (the query, or its `parallel`)
  std::map<std::string, int> exchange_index;
  std::map<std::string, int> fragment_index;
  std::map<std::string, std::pair<int, int>> op_at; // op id -> (fragment, op)
  std::vector<std::string> fragment_paths;
  std::vector<std::vector<std::string>> op_paths;    // [fragment][op]
  std::vector<int> leaf_uses, sink_uses;             // per exchange
  std::vector<std::pair<std::string, std::string>> build_refs; // (join op path, fragment id) to check
  // Runtime filters to resolve once every operator is known: (filter path, fragment, scan op, filter).
  struct FilterRef {
    std::string path;
    int fragment;
    int op;
    size_t k;
  };
  std::vector<FilterRef> filter_refs;
};

// Parses operator `node` into fragment `f`; returns its index.
int parse_op(const nlohmann::json& node, const std::string& path, int fi, FragmentSpec& f, QueryParse& qp, QuerySpec& q,
             Errors& err, int version);

} // namespace exsim
