#include "transfer/transfer_options.hpp"

#include <algorithm>
#include <utility>

#include "core/axis.hpp"

namespace hdbench {
namespace {

std::vector<int> default_memcpy_threads(int hardware_threads) {
  std::vector<int> threads;
  for (int t = 1; t <= hardware_threads; t *= 2) threads.push_back(t);
  if (threads.back() != hardware_threads) threads.push_back(hardware_threads);
  return threads;
}

}  // namespace

void declare_transfer_flags(FlagParser& flags, TransferOptions& o, const OptionLimits& limits) {
  o.sizes = parse_size_list("sizes", "4K:1G:x4");
  o.staged_chunk_sizes = parse_size_list("staged_chunks", "1M,4M,16M");
  o.memcpy_threads = default_memcpy_threads(std::max(1, limits.hardware_threads));
  // The staged ring's host side is a memcpy: it needs as many threads as host memcpy
  // does to keep up with the link (an H100 host: 16 for 46 GB/s).
  o.staged_threads = o.memcpy_threads;
  const int max_threads = std::max(256, limits.hardware_threads * 4);

  const int cores = std::max(1, limits.hardware_threads);
  const std::vector<int> one_and_all = cores > 1 ? std::vector<int>{1, cores} : std::vector<int>{1};
  const auto sizes = [](auto flag, auto v) { return parse_size_list(flag, v); };
  const auto threads = [max_threads](auto flag, auto v) { return parse_int_list(flag, v, 1, max_threads); };

  flags.group("transfer", "families transfer, pinning, staged, host_memcpy");
  declare_axis<std::size_t>(
      flags, o.sizes,
      {.flag = "sizes",
       .value_help = "SIZES",
       .description = "transfer sizes: list and FROM:TO:xFACTOR ranges (default 4K:1G:x4)",
       .parse = sizes,
       .quick = std::vector<std::size_t>{4096, std::size_t{1} << 20},
       .standard = std::vector<std::size_t>{4096, std::size_t{1} << 20, std::size_t{64} << 20, std::size_t{256} << 20},
       .report_field = "sizes_bytes"});
  Axis<Direction> directions = enum_axis<Direction>(
      "directions", "h2d, d2h, bidir, all_to_host, host_to_all (every --hdbench_devices GPU at once) (default all)",
      direction_from_string, all_directions());
  directions.quick = std::vector<Direction>{Direction::h2d, Direction::d2h, Direction::bidir};
  declare_axis(flags, o.directions, std::move(directions));
  declare_axis(flags, o.numa,
               enum_axis<NumaPlacement>("numa",
                                        "host buffers of one-way and all-GPU copies on the GPU's NUMA node (near) or "
                                        "the farthest (far) (default near)",
                                        numa_placement_from_string, all_numa_placements()));
  Axis<Engine> engines =
      enum_axis<Engine>("engines", "copy (DMA engines), sm (kernel over mapped memory) (default both)",
                        engine_from_string, all_engines());
  engines.quick = std::vector<Engine>{Engine::copy};
  declare_axis(flags, o.engines, std::move(engines));
  declare_axis<std::size_t>(flags, o.staged_chunk_sizes,
                            {.flag = "staged_chunks",
                             .value_help = "SIZES",
                             .description = "pinned chunk sizes of staged copies (default 1M,4M,16M)",
                             .parse = sizes,
                             .quick = std::vector<std::size_t>{std::size_t{1} << 20},
                             .standard = std::vector<std::size_t>{std::size_t{4} << 20},
                             .report_field = "staged_chunk_sizes_bytes"});
  declare_axis<int>(
      flags, o.staged_threads,
      {.flag = "staged_threads",
       .value_help = "LIST",
       .description =
           "host threads, each with a pinned ring and a stream of its own (default powers of two up to cores)",
       .parse = threads,
       .quick = std::vector<int>{1},
       .standard = one_and_all,
       .report_field = "staged_threads"});
  flags.add("staged_slots", "N",
            "pinned chunks in all, shared out over the staging threads (2 a thread at least), 2..64 (default 4)",
            [&o](auto flag, auto v) { o.staged_slots = parse_one_int(flag, v, 2, 64); });
  declare_axis<int>(flags, o.memcpy_threads,
                    {.flag = "memcpy_threads",
                     .value_help = "LIST",
                     .description = "threads for host memcpy (default powers of two up to cores)",
                     .parse = threads,
                     .quick = std::vector<int>{1},
                     .standard = one_and_all,
                     .report_field = "memcpy_threads"});

  // After the axes' presets (checks run in declaration order). Default sizes that do
  // not fit a small machine are skipped at run time instead.
  flags.add_check([&o, &flags, limits] {
    o.all_gpu_sizes = o.sizes;
    if (!flags.was_given("sizes") && flags.preset() == Preset::standard) {
      o.all_gpu_sizes = {*std::max_element(o.sizes.begin(), o.sizes.end())};
    }
    if (flags.was_given("sizes")) check_sizes_fit("sizes", o.sizes, limits);
    check_sizes_fit("staged_chunks", o.staged_chunk_sizes, limits);
  });
  flags.add_report([&o](nlohmann::json& j) {
    j["all_gpu_sizes_bytes"] = o.all_gpu_sizes;
    j["staged_slots"] = o.staged_slots;
  });
}

}  // namespace hdbench
