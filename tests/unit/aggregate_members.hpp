// Counting and locating the members of an aggregate, for the tests that tie each member of a
// struct to one row of a table (the parameter table, the results field table).
//   static_assert(exsim::test::member_count<Flags>() > 0);
#pragma once

#include <cstddef>
#include <set>

namespace exsim::test {

// Members of an aggregate: the most values it can be brace-initialised from (a value converts to
// any member's type, so no brace elision counts one member twice).
struct AnyValue {
  template <class T> operator T() const; // NOLINT: only named in unevaluated contexts
};
template <class T, class... A> constexpr size_t member_count() {
  if constexpr (requires { T{A{}..., AnyValue{}}; })
    return member_count<T, A..., AnyValue>();
  else
    return sizeof...(A);
}

// A member's place in T.
template <class T, class M> size_t offset_of(M T::*member) {
  static const T probe{};
  return static_cast<size_t>(reinterpret_cast<const char*>(&(probe.*member)) -
                             reinterpret_cast<const char*>(&probe));
}

// The places of some members of T.
template <class T, class... M> std::set<size_t> offsets_of(M T::*... members) {
  return {offset_of(members)...};
}

} // namespace exsim::test
