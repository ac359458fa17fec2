// A first-in first-out queue in one array used as a ring: once it has held its most, it never
// allocates again (a std::deque allocates and frees a block every few hundred bytes that pass
// through it). Its size is a power of two, so wrapping around is a mask, not a division. Items
// taken out stay in the array until overwritten: for plain values.
//   exsim::Ring<int> q; q.push_back(1); q.push_back(2);
//   int a = q.take_front();   // 1
#pragma once

#include <algorithm>
#include <cstddef>
#include <utility>
#include <vector>

namespace exsim {

template <class T> class Ring {
public:
  bool empty() const { return count_ == 0; }
  std::size_t size() const { return count_; }
  T& front() { return items_[head_]; }
  const T& front() const { return items_[head_]; }
  // The i-th item from the front.
  const T& operator[](std::size_t i) const { return items_[(head_ + i) & (items_.size() - 1)]; }

  void push_back(const T& x) {
    if (count_ == items_.size()) grow();
    items_[(head_ + count_) & (items_.size() - 1)] = x;
    ++count_;
  }
  void pop_front() {
    head_ = (head_ + 1) & (items_.size() - 1);
    --count_;
  }
  T take_front() {
    T x = std::move(items_[head_]);
    pop_front();
    return x;
  }
  void clear() {
    head_ = 0;
    count_ = 0;
  }

private:
  void grow() { // keeping the order
    std::vector<T> grown(std::max<std::size_t>(8, 2 * items_.size()));
    for (std::size_t i = 0; i < count_; ++i)
      grown[i] = std::move(items_[(head_ + i) & (items_.size() - 1)]);
    items_.swap(grown);
    head_ = 0;
  }

  std::vector<T> items_;
  std::size_t head_ = 0;
  std::size_t count_ = 0;
};

} // namespace exsim
