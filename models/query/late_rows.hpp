// Rows that a scan passed only because some of its runtime filters had not arrived yet, followed
// up the plan until a join that built one of those filters drops them (in Impala such a row finds no
// match in that join's hash table, as the filter, made from the same build, would have said). On the
// way they cost what any row costs: operators, exchanges, builds.
//
// A scan whose filters F are missing passes more rows than it would with them (FilterGate): its
// ordinary rows plus late ones, carried in the state "F missing". The first join they meet that built
// a filter in F drops them all: a row a filter rejects fails that join's match, and a late row is one
// some filter in F rejects, taken as the lowest (exact when the filters share a key, and close for
// independent filters that each keep little); an operator's ratio of output to input rows applies to
// late rows as to the others.
//   RowMix m = RowMix::late(missing, late_rows);  // a scan's batch
//   double dropped = m.drop_at(filters_this_join_built);
//   MixStream s(readers); s.put(rows, m); RowMix got = s.take(reader, rows);
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace exsim {

// The rows of a batch (or of a running total) that are late, by the set of filters they missed.
// Rows are absolute and fractional; what is not in a part is an ordinary row. A part names its set
// of filters by the one stored copy of that set (late_set), so that parts copy without allocating
// and compare by address.
struct RowMix {
  struct Part {
    const std::vector<int>* missing = nullptr; // query-wide filter ids, sorted (late_set)
    double rows = 0;
  };
  std::vector<Part> parts;

  // `rows` rows that passed without the filters `missing` (empty: ordinary rows).
  static RowMix late(const std::vector<int>& missing, double rows);
  bool clean() const { return parts.empty(); }
  // Whether this x `scale` has no late rows (what add(*this, scale) would add nothing of).
  bool clean(double scale) const;
  double late_rows() const;
  // Adds `m` x `scale`.
  void add(const RowMix& m, double scale = 1) { add(m.parts.data(), m.parts.data() + m.parts.size(), scale); }
  void add(const Part* begin, const Part* end, double scale);
  // Every part x `f` (0: none left).
  void scale(double f);
  // At the join that built the filters `built` (sorted ids): the parts missing one of them are
  // dropped. Returns the rows dropped.
  double drop_at(const std::vector<int>& built);
};

// The one stored copy of a set of filter ids (sorted): equal sets, the same address, for the
// process's life (a query's sets are few: those its scans have missed at once).
const std::vector<int>* late_set(const std::vector<int>& missing);

// The late rows in a sender's collectors, by channel, from when its rows are routed until their
// batch leaves: a channel's batch takes whole rows in order, and carries the late rows of what its
// collector held spread evenly over those rows (which rows of a collector are late is not kept).
// Only what is late is stored: a sender whose batches were all ordinary holds nothing.
//   CollectorMix c(channels);
//   c.route(channel, rows, held, m);         // `rows` routed with late rows `m`, `held` already waiting
//   c.route(channel, rows, held, batch, f);  // ... with the share f of a batch's late rows
//   RowMix sent = c.leave(channel, rows);    // a batch of `rows` leaves
class CollectorMix {
public:
  explicit CollectorMix(int channels) : channels_(channels) {}
  // `rows` routed to `channel`, whose collector held `held` rows, `late` x `share` of them late
  // (a sender routes a share of its batch's late rows without making a mix of them).
  void route(int channel, int64_t rows, int64_t held, const RowMix& late, double share = 1);
  // A batch of `rows` leaves `channel`: the late rows it carries.
  RowMix leave(int channel, int64_t rows);

private:
  struct Pending {
    double rows = 0; // in the collector since late rows came (with those held before, which carry none)
    RowMix late;     // the late among them
  };
  int channels_;
  std::vector<Pending> pending_; // by channel; sized when late rows first come
};

// Batches in the order they were put, read in that order by `readers` readers that each read the
// whole stream in its own units: a stream carries the mix of what flows through a FIFO (a scan's
// row-batch queue, an exchange's receivers) without changing what the FIFO does. Only late stretches
// are stored; a reader past them reads ordinary rows.
class MixStream {
public:
  explicit MixStream(int readers = 1);
  // The next `rows` rows (in the stream's units), `mix` of them late.
  void put(double rows, const RowMix& mix);
  // The mix of the next `rows` rows that `reader` reads.
  RowMix take(int reader, double rows);
  bool empty() const { return late_.empty(); }

private:
  struct Stretch {
    double from = 0, to = 0;
    uint32_t first = 0, count = 0; // the late share of each row of the stretch: parts_[first, first + count)
  };
  void compact();

  std::vector<Stretch> late_;
  std::vector<RowMix::Part> parts_; // the stretches' parts, in their order
  size_t first_ = 0; // stretches before this one every reader has passed
  double end_ = 0;
  std::vector<double> cursor_;
  std::vector<size_t> next_; // per reader: the first stretch it may still read
  uint64_t takes_ = 0;
};

} // namespace exsim
