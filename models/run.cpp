#include "models/run.hpp"

namespace exsim {

ExchangeRun exchange_run(const ExchangeRuntime& x) {
  return {x.status,  x.error,     x.start_s,           x.end_s,
          x.senders, x.receivers, x.sender_bytes_peak, x.receiver_bytes_peak};
}

QueryRun query_run(const QueryRuntime& q) {
  std::vector<ExchangeRun> exchanges;
  for (const auto& x : q.exchanges)
    exchanges.push_back(exchange_run(*x));
  return {q.status,         q.error, q.start_s, q.end_s, q.breakdown, q.fragment_stats, q.has_runtime_filters,
          std::move(exchanges), 0.0};
}

} // namespace exsim
