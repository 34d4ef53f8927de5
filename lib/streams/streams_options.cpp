#include "streams/streams_options.hpp"

#include <utility>

#include "core/axis.hpp"

namespace hdbench {

void declare_streams_flags(FlagParser& flags, StreamsOptions& o, const OptionLimits& limits) {
  o.stream_sizes = parse_size_list("stream_sizes", "256M");
  flags.group("streams");
  declare_axis<std::size_t>(flags, o.stream_sizes,
                            {.flag = "stream_sizes",
                             .value_help = "SIZES",
                             .description = "buffer sizes of the streams family, multiples of 4 bytes (default 256M)",
                             .parse =
                                 [](auto flag, auto v) {
                                   std::vector<std::size_t> sizes = parse_size_list(flag, v);
                                   for (std::size_t size : sizes) {
                                     if (size % 4 != 0)
                                       bad_value(flag, format_size(size),
                                                 "sizes that are multiples of 4 bytes (32-bit words)");
                                   }
                                   return sizes;
                                 },
                             .quick = std::vector<std::size_t>{std::size_t{4} << 20},
                             .standard = std::vector<std::size_t>{std::size_t{64} << 20},
                             .report_field = "stream_sizes_bytes"});
  declare_axis<int>(flags, o.stream_counts,
                    {.flag = "stream_counts",
                     .value_help = "LIST",
                     .description = "streams of a pipelined buffer, 1..64 (default 1,2,4,8)",
                     .parse = [](auto flag, auto v) { return parse_int_list(flag, v, 1, 64); },
                     .quick = std::vector<int>{1},
                     .standard = std::vector<int>{1, 4},
                     .report_field = "stream_counts"});
  declare_axis<int>(flags, o.chunk_counts,
                    {.flag = "chunk_counts",
                     .value_help = "LIST",
                     .description = "chunks a pipelined buffer is split into, 1..1024 (default 4,16,64)",
                     .parse = [](auto flag, auto v) { return parse_int_list(flag, v, 1, 1024); },
                     .quick = std::vector<int>{4},
                     .standard = std::vector<int>{16},
                     .report_field = "chunk_counts"});
  Axis<IssueOrder> orders =
      enum_axis<IssueOrder>("issue_orders", "by_chunk (a chunk's stages together), by_stage (default both)",
                            issue_order_from_string, all_issue_orders());
  orders.quick = std::vector<IssueOrder>{IssueOrder::by_chunk};
  declare_axis(flags, o.issue_orders, std::move(orders));
  declare_axis<double>(flags, o.compute_ratios,
                       {.flag = "compute_ratios",
                        .value_help = "LIST",
                        .description = "kernel time as a multiple of the H2D copy time, 0.05..4 (default 0.5,1,2)",
                        .parse = [](auto flag, auto v) { return parse_number_list(flag, v, 0.05, 4.0); },
                        .quick = std::vector<double>{1.0},
                        .standard = std::vector<double>{0.5, 2.0},
                        .report_field = "compute_ratios"});
  flags.add_check([&o, &flags, limits] {
    if (flags.was_given("stream_sizes")) check_sizes_fit("stream_sizes", o.stream_sizes, limits);
  });
}

}  // namespace hdbench
