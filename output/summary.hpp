// Readable summaries of a results document (`exsim run --summary`, `exsim summary FILE`): they
// read only the results JSON, so they work the same on a file written earlier.
//   std::cout << exsim::format_summary(results, {exsim::SummaryFormat::markdown, 10});
#pragma once

#include <nlohmann/json.hpp>

#include <string>

namespace exsim {

enum class SummaryFormat { text, markdown, csv };

// "text", "md" or "csv"; false for any other name.
bool parse_summary_format(const std::string& name, SummaryFormat& out);

struct SummaryOptions {
  SummaryFormat format = SummaryFormat::text;
  int top = 10; // queries listed by runtime and by blocked time; failures listed
};

// text and md: the exchanges (all of them up to 20, else the queries' top N by runtime and by
// blocked time), totals, peak-query memory, failures with their reason, exchanges whose
// configured K was not applied, measured vs simulated for entries carrying `expected`, and for a
// single exchange a one-line lesson drawn from its bound. csv: one row per query when the results
// have queries, else one row per exchange, every row.
std::string format_summary(const nlohmann::json& results, const SummaryOptions& options = {});

// format_summary to stdout.
void print_summary(const nlohmann::json& results, const SummaryOptions& options = {});

} // namespace exsim
