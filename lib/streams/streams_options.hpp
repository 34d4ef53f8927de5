// The streams family's options: buffer sizes (multiples of 4 bytes), stream and chunk
// counts, issue orders, and the kernel's time as a multiple of the buffer's H2D copy.
#pragma once

#include <cstddef>
#include <vector>

#include "core/flags.hpp"
#include "streams/streams_axes.hpp"

namespace hdbench {

struct StreamsOptions {
  std::vector<std::size_t> stream_sizes;
  std::vector<int> stream_counts = {1, 2, 4, 8};
  std::vector<int> chunk_counts = {4, 16, 64};
  std::vector<IssueOrder> issue_orders = all_issue_orders();
  std::vector<double> compute_ratios = {0.5, 1.0, 2.0};
};

void declare_streams_flags(FlagParser& flags, StreamsOptions& options, const OptionLimits& limits);

}  // namespace hdbench
