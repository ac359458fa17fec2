// The copy of a query's run between a query process and the parent (sim/simulation.cpp) carries
// every member the results field table reads, exactly: a run with a distinct value in each member
// comes back equal, member by member (test_fields.cpp checks that the table reads every member).
#include "models/run_fields.hpp"
#include "sim/simulation.hpp"

#include <catch2/catch.hpp>

#include <type_traits>

using namespace exsim;

namespace {

template <class T> void fill(T& t, int& k);
template <class T> bool same(const T& a, const T& b);

// A value unlike any other member's (k counts the members filled so far).
template <class V> void fill_value(V& v, int& k) {
  ++k;
  if constexpr (std::is_same_v<V, bool>)
    v = true;
  else if constexpr (std::is_same_v<V, double>)
    v = k + 0.1; // not a binary fraction: a copy through text must round-trip it
  else if constexpr (std::is_arithmetic_v<V>)
    v = static_cast<V>(k) * 1000003;
  else if constexpr (std::is_same_v<V, std::string>)
    v = "member " + std::to_string(k);
  else if constexpr (std::is_same_v<V, ExchangeStatus>)
    v = ExchangeStatus::cancelled;
  else if constexpr (std::is_same_v<V, Path>) {
    for (size_t i = 0; i < kPathParts; ++i)
      v.add(static_cast<PathPart>(i), k + i / 3.0);
  } else if constexpr (std::is_same_v<V, KSeries>)
    v = {{{k + 0.1, 2}, {k + 0.7, 3}}, {}};
  else { // a vector of run structs
    v.resize(2);
    for (auto& e : v)
      fill(e, k);
  }
}

template <class V> bool same_value(const V& a, const V& b) {
  if constexpr (std::is_same_v<V, Path>) {
    for (size_t i = 0; i < kPathParts; ++i)
      if (a.get(static_cast<PathPart>(i)) != b.get(static_cast<PathPart>(i))) return false;
    return true;
  } else if constexpr (std::is_arithmetic_v<V> || std::is_enum_v<V> || std::is_same_v<V, std::string> ||
                       std::is_same_v<V, KSeries>)
    return a == b;
  else {
    if (a.size() != b.size()) return false;
    for (size_t i = 0; i < a.size(); ++i)
      if (!same(a[i], b[i])) return false;
    return true;
  }
}

template <class T> void fill(T& t, int& k) {
  for (const MemberRead<T>& m : members_read<T>())
    std::visit([&](auto ptr) { fill_value(t.*ptr, k); }, m.ptr);
}

template <class T> bool same(const T& a, const T& b) {
  for (const MemberRead<T>& m : members_read<T>()) {
    const bool equal = std::visit([&](auto ptr) { return same_value(a.*ptr, b.*ptr); }, m.ptr);
    if (!equal) {
      UNSCOPED_INFO("differs after the copy: " << m.member);
      return false;
    }
  }
  return true;
}

} // namespace

TEST_CASE("a query's run crosses between processes with every member intact", "[sim][results]") {
  QueryRun q;
  int k = 0;
  fill(q, k);
  const QueryRun back = query_run_of(nlohmann::json::parse(query_run_json(q).dump()));
  CHECK(same(q, back));
  CHECK(!same(q, QueryRun{})); // the comparison sees a difference where there is one
}
