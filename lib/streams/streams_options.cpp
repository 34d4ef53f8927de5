#include "streams/streams_options.hpp"

namespace hdbench {

void declare_streams_flags(FlagParser& flags, StreamsOptions& o, const OptionLimits& limits) {
  o.stream_sizes = parse_size_list("stream_sizes", "256M");
  flags.group("streams");
  flags.add("stream_sizes", "SIZES", "buffer sizes of the streams family, multiples of 4 bytes (default 256M)",
            [&o](auto flag, auto v) {
              o.stream_sizes = parse_size_list(flag, v);
              for (std::size_t size : o.stream_sizes) {
                if (size % 4 != 0)
                  bad_value(flag, format_size(size), "sizes that are multiples of 4 bytes (32-bit words)");
              }
            });
  flags.add("stream_counts", "LIST", "streams of a pipelined buffer, 1..64 (default 1,2,4,8)",
            [&o](auto flag, auto v) { o.stream_counts = parse_int_list(flag, v, 1, 64); });
  flags.add("chunk_counts", "LIST", "chunks a pipelined buffer is split into, 1..1024 (default 4,16,64)",
            [&o](auto flag, auto v) { o.chunk_counts = parse_int_list(flag, v, 1, 1024); });
  flags.add("issue_orders", "LIST", "by_chunk (a chunk's stages together), by_stage (default both)",
            [&o](auto flag, auto v) {
              o.issue_orders = parse_enum_list<IssueOrder>(flag, v, issue_order_from_string, all_issue_orders());
            });
  flags.add("compute_ratios", "LIST", "kernel time as a multiple of the H2D copy time, 0.05..4 (default 0.5,1,2)",
            [&o](auto flag, auto v) { o.compute_ratios = parse_number_list(flag, v, 0.05, 4.0); });
  flags.add_check([&o, &flags, limits] {
    flags.apply_preset("stream_sizes", o.stream_sizes, {std::size_t{4} << 20}, {std::size_t{64} << 20});
    flags.apply_preset("stream_counts", o.stream_counts, {1}, {1, 4});
    flags.apply_preset("chunk_counts", o.chunk_counts, {4}, {16});
    flags.apply_preset("issue_orders", o.issue_orders, {IssueOrder::by_chunk}, o.issue_orders);
    flags.apply_preset("compute_ratios", o.compute_ratios, {1.0}, {0.5, 2.0});
    if (flags.was_given("stream_sizes")) check_sizes_fit("stream_sizes", o.stream_sizes, limits);
  });
  flags.add_report([&o](nlohmann::json& j) {
    j["stream_sizes_bytes"] = o.stream_sizes;
    j["stream_counts"] = o.stream_counts;
    j["chunk_counts"] = o.chunk_counts;
    j["issue_orders"] = names_of(o.issue_orders);
    j["compute_ratios"] = o.compute_ratios;
  });
}

}  // namespace hdbench
