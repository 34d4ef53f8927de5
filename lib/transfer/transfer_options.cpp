#include "transfer/transfer_options.hpp"

#include <algorithm>

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

  flags.group("transfer", "families transfer, pinning, staged, host_memcpy");
  flags.add("sizes", "SIZES", "transfer sizes: list and FROM:TO:xFACTOR ranges (default 4K:1G:x4)",
            [&o](auto flag, auto v) { o.sizes = parse_size_list(flag, v); });
  flags.add("directions", "LIST",
            "h2d, d2h, bidir, all_to_host, host_to_all (every --hdbench_devices GPU at once) (default all)",
            [&o](auto flag, auto v) {
              o.directions = parse_enum_list<Direction>(flag, v, direction_from_string, all_directions());
            });
  flags.add("numa", "LIST",
            "host buffers of one-way and all-GPU copies on the GPU's NUMA node (near) or the farthest (far) "
            "(default near)",
            [&o](auto flag, auto v) {
              o.numa = parse_enum_list<NumaPlacement>(flag, v, numa_placement_from_string, all_numa_placements());
            });
  flags.add(
      "engines", "LIST", "copy (DMA engines), sm (kernel over mapped memory) (default both)",
      [&o](auto flag, auto v) { o.engines = parse_enum_list<Engine>(flag, v, engine_from_string, all_engines()); });
  flags.add("staged_chunks", "SIZES", "pinned chunk sizes of staged copies (default 1M,4M,16M)",
            [&o](auto flag, auto v) { o.staged_chunk_sizes = parse_size_list(flag, v); });
  flags.add("staged_threads", "LIST", "host threads copying into the pinned ring (default powers of two up to cores)",
            [&o, max_threads](auto flag, auto v) { o.staged_threads = parse_int_list(flag, v, 1, max_threads); });
  flags.add("staged_slots", "N", "pinned chunks in the staging ring, 2..64 (default 4)",
            [&o](auto flag, auto v) { o.staged_slots = parse_one_int(flag, v, 2, 64); });
  flags.add("memcpy_threads", "LIST", "threads for host memcpy (default powers of two up to cores)",
            [&o, max_threads](auto flag, auto v) { o.memcpy_threads = parse_int_list(flag, v, 1, max_threads); });

  // Default sizes that do not fit a small machine are skipped at run time instead.
  flags.add_check([&o, &flags, limits] {
    const int cores = std::max(1, limits.hardware_threads);
    const std::vector<int> one_and_all = cores > 1 ? std::vector<int>{1, cores} : std::vector<int>{1};
    flags.apply_preset("sizes", o.sizes, {4096, std::size_t{1} << 20},
                       {4096, std::size_t{1} << 20, std::size_t{64} << 20, std::size_t{256} << 20});
    flags.apply_preset("engines", o.engines, {Engine::copy}, o.engines);
    flags.apply_preset("directions", o.directions, {Direction::h2d, Direction::d2h, Direction::bidir}, o.directions);
    o.all_gpu_sizes = o.sizes;
    if (!flags.was_given("sizes") && flags.preset() == Preset::standard) {
      o.all_gpu_sizes = {*std::max_element(o.sizes.begin(), o.sizes.end())};
    }
    flags.apply_preset("staged_chunks", o.staged_chunk_sizes, {std::size_t{1} << 20}, {std::size_t{4} << 20});
    flags.apply_preset("staged_threads", o.staged_threads, {1}, one_and_all);
    flags.apply_preset("memcpy_threads", o.memcpy_threads, {1}, one_and_all);
    if (flags.was_given("sizes")) check_sizes_fit("sizes", o.sizes, limits);
    check_sizes_fit("staged_chunks", o.staged_chunk_sizes, limits);
  });
  flags.add_report([&o](nlohmann::json& j) {
    j["sizes_bytes"] = o.sizes;
    j["directions"] = names_of(o.directions);
    j["all_gpu_sizes_bytes"] = o.all_gpu_sizes;
    j["numa"] = names_of(o.numa);
    j["engines"] = names_of(o.engines);
    j["staged_chunk_sizes_bytes"] = o.staged_chunk_sizes;
    j["staged_threads"] = o.staged_threads;
    j["staged_slots"] = o.staged_slots;
    j["memcpy_threads"] = o.memcpy_threads;
  });
}

}  // namespace hdbench
