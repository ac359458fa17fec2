// The bounded in-flight window's bookkeeping (see window.hpp).
#include "models/window/window.hpp"

#include <stdexcept>

namespace exsim {

namespace {

WindowPolicySpec fixed_limit(int max_in_flight) {
  if (max_in_flight < 1) throw std::logic_error("Window: at least one request must be allowed in flight");
  return {.kind = WindowPolicyKind::fixed, .initial = max_in_flight, .max = max_in_flight};
}

} // namespace

Window::Window(int max_in_flight, int64_t max_reserved_bytes) : Window(fixed_limit(max_in_flight), max_reserved_bytes) {}

Window::Window(const WindowPolicySpec& policy, int64_t max_reserved_bytes)
    : policy_(policy), slot_bytes_(static_cast<size_t>(policy.capacity()), kFree),
      max_bytes_(max_reserved_bytes) {
  if (max_reserved_bytes < 0 && max_reserved_bytes != kNoByteLimit)
    throw std::logic_error("Window: negative byte limit");
}

bool Window::fits(int64_t bytes) const {
  // Written as Velox's prefetcher does, so that an oversized request never fits.
  return !byte_limited() || (reserved_ <= max_bytes_ && bytes <= max_bytes_ - reserved_);
}

int Window::start(double now, int64_t bytes) {
  if (bytes < 0) throw std::logic_error("Window::start: negative bytes");
  if (has_free_slot())
    for (size_t i = 0; i < slot_bytes_.size(); ++i)
      if (slot_bytes_[i] == kFree) {
        slot_bytes_[i] = bytes;
        ++in_flight_;
        reserved_ += bytes;
        policy_.on_start(static_cast<int>(i), now, bytes, in_flight_);
        return static_cast<int>(i);
      }
  throw std::logic_error("Window::start: no free slot (the caller must wait for one)");
}

int64_t Window::finish(int slot, double now, Release release) {
  const size_t i = static_cast<size_t>(slot);
  if (slot_bytes_.at(i) == kFree) throw std::logic_error("Window::finish: slot is not in flight");
  policy_.on_finish(slot, now);
  --in_flight_;
  const int64_t bytes = slot_bytes_[i];
  slot_bytes_[i] = kFree;
  if (release == Release::at_finish) reserved_ -= bytes;
  return bytes;
}

void Window::release(int64_t bytes) {
  if (bytes < 0 || bytes > reserved_) throw std::logic_error("Window::release: more bytes than reserved");
  reserved_ -= bytes;
}

void Window::record_error(const std::string& what) {
  if (!first_error_) first_error_ = std::make_unique<std::string>(what);
}

} // namespace exsim
