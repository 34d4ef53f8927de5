#include "loader/loader_options.hpp"

#include <algorithm>
#include <thread>
#include <utility>

#include "core/axis.hpp"

namespace hdbench {

void declare_loader_flags(FlagParser& flags, LoaderOptions& o) {
  flags.group("loader");
  const int cores = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  std::vector<int> some_workers = {0, 2, 8, cores};
  std::sort(some_workers.begin(), some_workers.end());
  some_workers.erase(std::unique(some_workers.begin(), some_workers.end()), some_workers.end());
  declare_axis<int>(flags, o.batches,
                    {.flag = "loader_batches",
                     .value_help = "LIST",
                     .description = "loader batch sizes, 1..65536 (default 32,64,...,4096)",
                     .parse = [](auto flag, auto v) { return parse_int_list(flag, v, 1, 65536); },
                     .quick = std::vector<int>{128},
                     .standard = std::vector<int>{128, 1024},
                     .report_field = "loader_batches"});
  declare_axis<int>(flags, o.workers,
                    {.flag = "loader_workers",
                     .value_help = "LIST",
                     .description = "loader worker threads, 0..1024; 0 builds on the consumer (default 0,1,2,4,8,16)",
                     .parse = [](auto flag, auto v) { return parse_int_list(flag, v, 0, 1024); },
                     .quick = std::vector<int>{0, 2},
                     .standard = some_workers,
                     .report_field = "loader_workers"});
  declare_axis<int>(flags, o.depths,
                    {.flag = "loader_depths",
                     .value_help = "LIST",
                     .description = "ready batches kept ahead per worker, 1..64 (default 2, PyTorch's prefetch_factor)",
                     .parse = [](auto flag, auto v) { return parse_int_list(flag, v, 1, 64); },
                     .report_field = "loader_depths"});
  declare_axis<double>(
      flags, o.costs_us,
      {.flag = "loader_costs_us",
       .value_help = "LIST",
       .description = "synthetic CPU cost per sample in us, 0..100000, stands in for decoding (default 0,20)",
       .parse = [](auto flag, auto v) { return parse_number_list(flag, v, 0.0, 100000.0); },
       .quick = std::vector<double>{0.0},
       .report_field = "loader_costs_us"});
  declare_axis<bool>(flags, o.shuffle,
                     {.flag = "loader_shuffle",
                      .value_help = "LIST",
                      .description = "on, off: shuffle the sampler per epoch (default on)",
                      .parse = [](auto flag, auto v) { return parse_switch_list(flag, v); },
                      .report_field = "loader_shuffle"});
  Axis<PinMode> pinning =
      enum_axis<PinMode>("loader_pinning", "pageable, pin_thread (PyTorch's pin thread), direct (default all)",
                         pin_mode_from_string, all_pin_modes());
  pinning.quick = std::vector<PinMode>{PinMode::pin_thread};
  declare_axis(flags, o.pinning, std::move(pinning));
  // The default preset builds split batches only (whole ones add ~50 s on an H100 and
  // are PyTorch's way, which its baseline measures); full runs both side by side.
  Axis<BatchBuild> builds =
      enum_axis<BatchBuild>("loader_build",
                            "whole (a worker builds a batch, as PyTorch's), split (workers share each batch in parts); "
                            "default and quick presets: split; full: both",
                            batch_build_from_string, all_batch_builds());
  builds.quick = std::vector<BatchBuild>{BatchBuild::split};
  builds.standard = std::vector<BatchBuild>{BatchBuild::split};
  declare_axis(flags, o.builds, std::move(builds));
  Axis<Augment> augments = enum_axis<Augment>(
      "loader_augment", "none, crop_flip (random crop with padding + horizontal flip) (default none)",
      augment_from_string, all_augments());
  declare_axis(flags, o.augments, std::move(augments));
  declare_axis(flags, o.consumers,
               enum_axis<LoaderConsumer>("loader_consumers",
                                         "host (CPU checksum), gpu (async copy + checksum kernel) (default both)",
                                         loader_consumer_from_string, all_loader_consumers()));
  flags.add_check([&o, &flags] {
    o.costed_one_pinning =
        flags.preset() == Preset::standard && !flags.was_given("loader_pinning") && !flags.was_given("loader_costs_us");
  });
}

}  // namespace hdbench
