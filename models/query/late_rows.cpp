#include "models/query/late_rows.hpp"

#include <algorithm>
#include <set>

namespace exsim {

const std::vector<int>* late_set(const std::vector<int>& missing) {
  static std::set<std::vector<int>> sets; // nodes keep their address
  return &*sets.insert(missing).first;
}

RowMix RowMix::late(const std::vector<int>& missing, double rows) {
  RowMix m;
  if (!missing.empty() && rows > 0) m.parts.push_back({late_set(missing), rows});
  return m;
}

double RowMix::late_rows() const {
  double s = 0;
  for (const Part& p : parts)
    s += p.rows;
  return s;
}

bool RowMix::clean(double scale) const {
  return std::none_of(parts.begin(), parts.end(), [&](const Part& p) { return p.rows * scale > 0; });
}

void RowMix::add(const Part* begin, const Part* end, double scale) {
  for (const Part* q = begin; q != end; ++q) {
    const double rows = q->rows * scale;
    if (rows <= 0) continue;
    auto it = std::find_if(parts.begin(), parts.end(), [&](const Part& p) { return p.missing == q->missing; });
    if (it == parts.end())
      parts.push_back({q->missing, rows});
    else
      it->rows += rows;
  }
}

void RowMix::scale(double f) {
  if (f <= 0) {
    parts.clear();
    return;
  }
  for (Part& p : parts)
    p.rows *= f;
}

double RowMix::drop_at(const std::vector<int>& built) {
  if (parts.empty() || built.empty()) return 0;
  double dropped = 0;
  size_t kept = 0;
  for (const Part& p : parts) {
    const bool hit = std::any_of(p.missing->begin(), p.missing->end(),
                                 [&](int id) { return std::binary_search(built.begin(), built.end(), id); });
    if (hit)
      dropped += p.rows;
    else
      parts[kept++] = p;
  }
  parts.resize(kept);
  return dropped;
}

void CollectorMix::route(int channel, int64_t rows, int64_t held, const RowMix& late, double share) {
  const bool clean = late.clean(share);
  if (clean && pending_.empty()) return;
  if (pending_.empty()) pending_.resize(static_cast<size_t>(channels_));
  Pending& p = pending_.at(static_cast<size_t>(channel));
  if (clean && p.rows <= 0) return;
  if (p.rows <= 0) p.rows = static_cast<double>(held);
  p.rows += static_cast<double>(rows);
  p.late.add(late, share);
}

RowMix CollectorMix::leave(int channel, int64_t rows) {
  RowMix m;
  if (pending_.empty()) return m;
  Pending& p = pending_.at(static_cast<size_t>(channel));
  if (p.rows <= 0) return m;
  const double f = std::min(1.0, static_cast<double>(rows) / p.rows);
  m.add(p.late, f);
  p.late.scale(1 - f);
  p.rows -= static_cast<double>(rows);
  if (p.rows <= 0) p = {};
  return m;
}

MixStream::MixStream(int readers) : cursor_(static_cast<size_t>(readers), 0), next_(static_cast<size_t>(readers), 0) {}

void MixStream::put(double rows, const RowMix& mix) {
  if (rows <= 0) return;
  const double from = end_;
  end_ += rows;
  if (mix.clean()) return;
  // The late share of each row (RowMix::scale by 1 / rows, into the stream's parts).
  const double f = 1 / rows;
  const size_t first = parts_.size();
  for (const RowMix::Part& p : mix.parts)
    parts_.push_back({p.missing, p.rows * f});
  const size_t count = parts_.size() - first;
  if (late_.size() > first_) {
    Stretch& last = late_.back();
    bool same = last.to == from && last.count == count;
    for (size_t i = 0; same && i < count; ++i)
      same = parts_[last.first + i].missing == parts_[first + i].missing &&
             parts_[last.first + i].rows == parts_[first + i].rows;
    if (same) {
      parts_.resize(first);
      last.to = end_;
      return;
    }
  }
  late_.push_back({from, end_, static_cast<uint32_t>(first), static_cast<uint32_t>(count)});
}

RowMix MixStream::take(int reader, double rows) {
  RowMix got;
  const size_t r = static_cast<size_t>(reader);
  const double from = cursor_[r];
  const double to = from + rows;
  cursor_[r] = to;
  if (late_.size() == first_) return got;
  size_t& i = next_[r];
  i = std::max(i, first_);
  while (i < late_.size() && late_[i].to <= from)
    ++i;
  for (size_t j = i; j < late_.size() && late_[j].from < to; ++j) {
    const double overlap = std::min(to, late_[j].to) - std::max(from, late_[j].from);
    if (overlap > 0) {
      const RowMix::Part* p = parts_.data() + late_[j].first;
      got.add(p, p + late_[j].count, overlap);
    }
  }
  if ((++takes_ & 255) == 0) compact();
  return got;
}

// Drops the stretches every reader has passed, once they are many.
void MixStream::compact() {
  size_t passed = late_.size();
  for (size_t r = 0; r < cursor_.size(); ++r) {
    size_t i = std::max(next_[r], first_);
    while (i < late_.size() && late_[i].to <= cursor_[r])
      ++i;
    passed = std::min(passed, i);
  }
  first_ = passed;
  if (first_ < 1024 || first_ * 2 < late_.size()) return;
  const uint32_t dropped_parts = first_ < late_.size() ? late_[first_].first : static_cast<uint32_t>(parts_.size());
  late_.erase(late_.begin(), late_.begin() + static_cast<std::ptrdiff_t>(first_));
  parts_.erase(parts_.begin(), parts_.begin() + static_cast<std::ptrdiff_t>(dropped_parts));
  for (Stretch& s : late_)
    s.first -= dropped_parts;
  for (size_t& n : next_)
    n = n >= first_ ? n - first_ : 0;
  first_ = 0;
}

} // namespace exsim
