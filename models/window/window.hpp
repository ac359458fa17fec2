// A bounded in-flight window: at most N requests in flight, optionally at most B bytes reserved,
// the first error kept. It is the one mechanism behind a channel's K RPC slots and a prefetcher's
// C splits (and its byte window). A request holds a slot from start() to finish(); its bytes stay
// reserved until the caller releases them, at finish() or later (a prefetched split keeps its
// bytes until a consumer takes it). A priority request may exceed the byte window, never the
// count. "Wait for all" is idle(). How many may be in flight is its policy's limit
// (models/window/window_policy.hpp): fixed, or adapted at run time from the requests' round trips up
// to the policy's cap, which is the number of slots. Pure bookkeeping: the caller passes the time.
//   exsim::Window w(/*max_in_flight=*/2, /*max_reserved_bytes=*/1 << 20);
//   if (w.can_start(bytes, /*priority=*/false)) slot = w.start(now, bytes);
//   w.finish(slot, now, exsim::Window::Release::later);   // ...  w.release(bytes);
#pragma once

#include "models/core/small_array.hpp"
#include "models/window/window_policy.hpp"

#include <cstdint>
#include <memory>
#include <string>

namespace exsim {

class Window {
public:
  static constexpr int64_t kNoByteLimit = -1;
  enum class Release { at_finish, later };

  // A fixed limit of `max_in_flight`.
  explicit Window(int max_in_flight, int64_t max_reserved_bytes = kNoByteLimit);
  explicit Window(const WindowPolicySpec& policy, int64_t max_reserved_bytes = kNoByteLimit);

  // Slots: the most requests the policy may ever let in flight.
  int capacity() const { return static_cast<int>(slot_bytes_.size()); }
  // How many may be in flight now.
  int limit() const { return policy_.limit(); }
  int in_flight() const { return in_flight_; }
  bool has_free_slot() const { return in_flight_ < policy_.limit(); }
  bool idle() const { return in_flight_ == 0; }
  int64_t reserved_bytes() const { return reserved_; }
  bool byte_limited() const { return max_bytes_ != kNoByteLimit; }

  // Whether `bytes` more fit in the byte window (always true without a byte limit).
  bool fits(int64_t bytes) const;
  // A free slot, and room for the bytes unless the request has priority.
  bool can_start(int64_t bytes = 0, bool priority = false) const {
    return has_free_slot() && (priority || fits(bytes));
  }

  // Occupies the lowest free slot at `now`, reserves `bytes` and returns the slot. Precondition:
  // has_free_slot() (the byte window is the caller's choice: see can_start).
  int start(double now, int64_t bytes = 0);

  // Frees the slot at `now`; with Release::at_finish also the bytes it reserved. Returns those bytes.
  int64_t finish(int slot, double now, Release release = Release::at_finish);
  // Releases bytes kept reserved past finish().
  void release(int64_t bytes);

  // The first error recorded wins; later ones are dropped. nullptr while there is none.
  void record_error(const std::string& what);
  const std::string* first_error() const { return first_error_.get(); }

  const WindowPolicy& policy() const { return policy_; }

private:
  // A sender holds one window per channel (1.44 M at 150 executors, mt_dop=8): what a window
  // keeps is kept small (docs/speed.md, "Scaling with the cluster").
  static constexpr int64_t kFree = -1;
  WindowPolicy policy_;
  SmallArray<int64_t, 2> slot_bytes_; // per slot: the bytes it reserved, kFree when not in flight
  int in_flight_ = 0;
  int64_t max_bytes_;
  int64_t reserved_ = 0;
  std::unique_ptr<std::string> first_error_;
};

} // namespace exsim
