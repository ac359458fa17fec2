// Routing policies of the sender kinds (partitioning.hpp lists the kinds): which channel(s) each
// row or batch goes to.
// Mechanism (the K-slot channel) lives in channel.hpp; this file is policy only.
//   HASH_PARTITIONED, KUDU  -> RowSplitter: rows of an input batch split across channel collectors
//   DIRECTED                -> RowSplitter with fanout: a row is copied to several channels
//   RANDOM (and one-channel) -> RoundRobin: whole input batches, channel order shuffled once
//   UNPARTITIONED           -> every channel gets every batch (serialized once)
#pragma once

#include "models/core/rng.hpp"
#include "models/exchange/partitioning.hpp"

#include <cstdint>
#include <string>
#include <vector>

namespace exsim {

// The rows each channel receives from one input batch. Only the channels listed in `touched`
// (each once) received any; every other entry of `rows` is 0. Reused from batch to batch, so the
// cost of a batch follows the channels it touches, not all of them.
struct BatchSplit {
  std::vector<int64_t> rows; // per channel
  std::vector<int> touched;
  void reset(size_t channels); // all zero, none touched
  void add(int channel, int64_t n) {
    if (n <= 0) return;
    int64_t& r = rows[static_cast<size_t>(channel)];
    if (r == 0) touched.push_back(channel);
    r += n;
  }
};

// Splits the rows of each input batch across channels in proportion to weights, with the
// multinomial noise that hashing distinct keys produces (so collectors fill at staggered times).
// Two ways to draw the same distribution, chosen once per sender by what is cheaper: with few
// channels, a chain of conditional binomials (one draw per channel); when the channels are many
// against a batch's rows, a channel per row from an alias table of the weights (one uniform per
// row, O(1) each).
class RowSplitter {
public:
  // weights: relative share per channel (all > 0); fanout: channels each row is copied to;
  // batch_rows: the rows of a full input batch (decides the way of drawing).
  RowSplitter(std::vector<double> weights, int fanout, uint64_t seed, int64_t batch_rows);
  // Fills `out` with the rows each channel receives; the sum is exactly rows * fanout.
  void split(int64_t rows, BatchSplit& out);
  bool row_by_row() const { return row_by_row_; }
  // Row by row once the channels exceed a full batch's rows / kRowsPerChannelForChain: then one
  // binomial draw per channel (an exp or a log each) costs more than one uniform per row.
  static constexpr int64_t kRowsPerChannelForChain = 8;

private:
  void split_chain(int64_t rows, BatchSplit& out);
  void split_rows(int64_t rows, BatchSplit& out);
  std::vector<double> weights_; // normalised to sum 1
  int fanout_;
  Rng rng_;
  bool row_by_row_;
  // Walker's alias table (row by row): column i gives channel i with probability
  // keep32_[i] / 2^32, else alias_[i].
  std::vector<uint64_t> keep32_;
  std::vector<int> alias_;
};

// Draw from Binomial(n, p): exact for small n, Poisson inverse-CDF for small means, normal
// approximation otherwise (clamped to [0, n]). Deterministic for a given Rng state.
int64_t binomial_draw(Rng& rng, int64_t n, double p);

class RoundRobin {
public:
  RoundRobin(int channels, uint64_t seed);
  int next();

private:
  std::vector<int> order_;
  size_t pos_ = 0;
};

// A point inside an input batch where one channel's collector reaches capacity.
struct FillEvent {
  double position; // fraction of the input batch processed when the collector fills, in (0, 1]
  int channel;
};

// Given each collector's current fill, the rows each channel receives from this input batch and
// the capacity, lists in `events` every point at which a collector fills, in the order rows reach
// them (ties by channel index). Rows interleave uniformly within the batch.
void collector_fill_events(const std::vector<int64_t>& fill, const BatchSplit& incoming, int64_t capacity,
                           std::vector<FillEvent>& events);

} // namespace exsim
