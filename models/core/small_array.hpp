// An array of a size fixed when it is made, whose items live inside the object when there are at
// most N of them, and in one heap block otherwise. A sender holds a window of RPC slots per channel
// (70 M channels for the TPC-DS workload at 40 executors, mt_dop=8), nearly all with K of 1 or 2
// slots: inline, making a channel allocates nothing. For plain values.
//   exsim::SmallArray<int64_t, 2> a(k, -1);   // k items, each -1
//   a[0] = 5;  a.at(i);                         // at() checks the index
#pragma once

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <stdexcept>

namespace exsim {

template <class T, std::size_t N> class SmallArray {
public:
  SmallArray(std::size_t n, const T& value) : size_(n) {
    if (n > N) heap_ = std::make_unique<T[]>(n);
    std::fill(begin(), end(), value);
  }
  explicit SmallArray(std::size_t n) : SmallArray(n, T{}) {}
  SmallArray(SmallArray&&) noexcept = default;
  SmallArray& operator=(SmallArray&&) noexcept = default;

  std::size_t size() const { return size_; }
  bool is_inline() const { return !heap_; }
  T* begin() { return heap_ ? heap_.get() : inline_.data(); }
  T* end() { return begin() + size_; }
  const T* begin() const { return heap_ ? heap_.get() : inline_.data(); }
  const T* end() const { return begin() + size_; }
  T& operator[](std::size_t i) { return begin()[i]; }
  const T& operator[](std::size_t i) const { return begin()[i]; }
  T& at(std::size_t i) { return begin()[checked(i)]; }
  const T& at(std::size_t i) const { return begin()[checked(i)]; }

private:
  std::size_t checked(std::size_t i) const {
    if (i >= size_) throw std::out_of_range("SmallArray::at: index past the end");
    return i;
  }
  std::array<T, N> inline_{};
  std::unique_ptr<T[]> heap_;
  std::size_t size_;
};

} // namespace exsim
