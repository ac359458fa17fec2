#include "models/core/coro.hpp"

#include <new>
#include <vector>

namespace exsim {

namespace {
constexpr std::size_t kGrain = 64;
constexpr std::size_t kClasses = 64; // frames up to 4 KiB are pooled

// The pooled frames are freed with the pool at exit, so that none is left unreachable (LeakSanitizer
// checks after static destructors have run).
struct FramePool {
  std::vector<void*> lists[kClasses];
  FramePool() = default;
  FramePool(const FramePool&) = delete;
  FramePool& operator=(const FramePool&) = delete;
  ~FramePool() {
    for (auto& list : lists)
      for (void* p : list)
        ::operator delete(p);
  }
};

std::vector<void*>& free_list(std::size_t cls) {
  static FramePool pool;
  return pool.lists[cls];
}
} // namespace

void* frame_alloc(std::size_t bytes) {
  const std::size_t cls = (bytes + kGrain - 1) / kGrain;
  if (cls >= kClasses) return ::operator new(bytes);
  auto& list = free_list(cls);
  if (!list.empty()) {
    void* p = list.back();
    list.pop_back();
    return p;
  }
  return ::operator new(cls * kGrain);
}

void frame_free(void* p, std::size_t bytes) noexcept {
  const std::size_t cls = (bytes + kGrain - 1) / kGrain;
  if (cls >= kClasses) {
    ::operator delete(p);
    return;
  }
  try {
    free_list(cls).push_back(p);
  } catch (...) {
    ::operator delete(p);
  }
}

} // namespace exsim
