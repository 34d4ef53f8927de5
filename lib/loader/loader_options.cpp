#include "loader/loader_options.hpp"

#include <algorithm>
#include <thread>

namespace hdbench {

void declare_loader_flags(FlagParser& flags, LoaderOptions& o) {
  flags.group("loader");
  flags.add("loader_batches", "LIST", "loader batch sizes, 1..65536 (default 32,64,...,4096)",
            [&o](auto flag, auto v) { o.batches = parse_int_list(flag, v, 1, 65536); });
  flags.add("loader_workers", "LIST", "loader worker threads, 0..1024; 0 builds on the consumer (default 0,1,2,4,8,16)",
            [&o](auto flag, auto v) { o.workers = parse_int_list(flag, v, 0, 1024); });
  flags.add("loader_depths", "LIST",
            "ready batches kept ahead per worker, 1..64 (default 2, PyTorch's prefetch_factor)",
            [&o](auto flag, auto v) { o.depths = parse_int_list(flag, v, 1, 64); });
  flags.add("loader_costs_us", "LIST",
            "synthetic CPU cost per sample in us, 0..100000, stands in for decoding (default 0,20)",
            [&o](auto flag, auto v) { o.costs_us = parse_number_list(flag, v, 0.0, 100000.0); });
  flags.add("loader_shuffle", "LIST", "on, off: shuffle the sampler per epoch (default on)",
            [&o](auto flag, auto v) { o.shuffle = parse_switch_list(flag, v); });
  flags.add("loader_pinning", "LIST", "pageable, pin_thread (PyTorch's pin thread), direct (default all)",
            [&o](auto flag, auto v) {
              o.pinning = parse_enum_list<PinMode>(flag, v, pin_mode_from_string, all_pin_modes());
            });
  flags.add(
      "loader_augment", "LIST", "none, crop_flip (random crop with padding + horizontal flip) (default none)",
      [&o](auto flag, auto v) { o.augments = parse_enum_list<Augment>(flag, v, augment_from_string, all_augments()); });
  flags.add("loader_consumers", "LIST", "host (CPU checksum), gpu (async copy + checksum kernel) (default both)",
            [&o](auto flag, auto v) {
              o.consumers =
                  parse_enum_list<LoaderConsumer>(flag, v, loader_consumer_from_string, all_loader_consumers());
            });
  flags.add_check([&o, &flags] {
    const int cores = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
    std::vector<int> workers = {0, 2, 8, cores};
    std::sort(workers.begin(), workers.end());
    workers.erase(std::unique(workers.begin(), workers.end()), workers.end());
    flags.apply_preset("loader_batches", o.batches, {128}, {128, 1024});
    flags.apply_preset("loader_workers", o.workers, {0, 2}, workers);
    flags.apply_preset("loader_costs_us", o.costs_us, {0.0}, o.costs_us);
    flags.apply_preset("loader_pinning", o.pinning, {PinMode::pin_thread}, o.pinning);
  });
  flags.add_report([&o](nlohmann::json& j) {
    j["loader_batches"] = o.batches;
    j["loader_workers"] = o.workers;
    j["loader_depths"] = o.depths;
    j["loader_costs_us"] = o.costs_us;
    j["loader_shuffle"] = o.shuffle;
    j["loader_pinning"] = names_of(o.pinning);
    j["loader_augment"] = names_of(o.augments);
    j["loader_consumers"] = names_of(o.consumers);
  });
}

}  // namespace hdbench
