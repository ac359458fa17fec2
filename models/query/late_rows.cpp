#include "models/query/late_rows.hpp"

#include <algorithm>

namespace exsim {

RowMix RowMix::late(const std::vector<int>& missing, double rows) {
  RowMix m;
  if (!missing.empty() && rows > 0) m.parts.push_back({missing, rows});
  return m;
}

double RowMix::late_rows() const {
  double s = 0;
  for (const Part& p : parts)
    s += p.rows;
  return s;
}

void RowMix::add(const RowMix& m, double scale) {
  for (const Part& q : m.parts) {
    const double rows = q.rows * scale;
    if (rows <= 0) continue;
    auto it = std::find_if(parts.begin(), parts.end(), [&](const Part& p) { return p.missing == q.missing; });
    if (it == parts.end())
      parts.push_back({q.missing, rows});
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
  std::vector<Part> kept;
  for (Part& p : parts) {
    const bool hit = std::any_of(p.missing.begin(), p.missing.end(),
                                 [&](int id) { return std::binary_search(built.begin(), built.end(), id); });
    if (hit)
      dropped += p.rows;
    else
      kept.push_back(std::move(p));
  }
  parts = std::move(kept);
  return dropped;
}

MixStream::MixStream(int readers) : cursor_(static_cast<size_t>(readers), 0), next_(static_cast<size_t>(readers), 0) {}

void MixStream::put(double rows, const RowMix& mix) {
  if (rows <= 0) return;
  const double from = end_;
  end_ += rows;
  if (mix.clean()) return;
  RowMix per_row = mix;
  per_row.scale(1 / rows);
  if (late_.size() > first_) {
    Stretch& last = late_.back();
    bool same = last.to == from && last.per_row.parts.size() == per_row.parts.size();
    for (size_t i = 0; same && i < per_row.parts.size(); ++i)
      same = last.per_row.parts[i].missing == per_row.parts[i].missing &&
             last.per_row.parts[i].rows == per_row.parts[i].rows;
    if (same) {
      last.to = end_;
      return;
    }
  }
  late_.push_back({from, end_, std::move(per_row)});
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
    if (overlap > 0) got.add(late_[j].per_row, overlap);
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
  late_.erase(late_.begin(), late_.begin() + static_cast<std::ptrdiff_t>(first_));
  for (size_t& n : next_)
    n = n >= first_ ? n - first_ : 0;
  first_ = 0;
}

} // namespace exsim
