#include "core/options.hpp"

#include <algorithm>

namespace hdbench {

bool Options::runs_family(std::string_view name) const {
  return std::find(families.begin(), families.end(), name) != families.end();
}

void declare_core_flags(FlagParser& flags, Options& o, const std::vector<std::string>& family_names,
                        std::uint64_t random_seed) {
  o.families = family_names;
  o.seed = random_seed;
  flags.add("out", "PATH", "JSON report path (default reports/hdbench-<host>-<time>.json)",
            [&o](auto flag, auto v) { o.out_path = parse_nonempty(flag, v, "a file path"); });
  flags.add("families", "LIST", fmt::format("families to run: {} (default all)", fmt::join(family_names, ", ")),
            [&o, family_names](auto flag, auto v) {
              o.families.clear();
              for (std::string_view item : split(v, ',')) {
                if (std::find(family_names.begin(), family_names.end(), item) == family_names.end()) {
                  bad_value(flag, item.empty() ? v : item,
                            fmt::format("a comma-separated list of {}", fmt::join(family_names, ", ")));
                }
                o.families.emplace_back(item);
              }
            });
  flags.add("memory", "LIST", "host memory of transfer and streams: pageable, registered, pinned, pinned_wc, mapped (default all)",
            [&o](auto flag, auto v) {
              o.memory_kinds = parse_enum_list<HostMemoryKind>(flag, v, host_memory_kind_from_string,
                                                               all_host_memory_kinds());
            });
  flags.add("device", "N", "CUDA device index (default 0)", [&o](auto flag, auto v) {
    const std::uint64_t device = parse_unsigned(flag, v, "a device index 0, 1, …");
    if (device > 4095) bad_value(flag, v, "a device index 0, 1, …");
    o.device = static_cast<int>(device);
  });
  flags.add("seed", "N", "seed of the verification pattern (default random, recorded)",
            [&o](auto flag, auto v) { o.seed = parse_unsigned(flag, v, "an unsigned 64-bit integer"); });
  flags.add("spin_timeout_ms", "MS", "how long a spin kernel holds queued work, 1..600000 (default 5000)",
            [&o](auto flag, auto v) {
              o.spin_timeout_ms = parse_one_number(flag, v, 1.0, 600000.0, "milliseconds from 1 to 600000");
            });
  flags.add("preset", "NAME",
            "quick (a smoke run, under a minute), default (every question of the summary), full (every axis's "
            "whole range); an axis flag given overrides its preset (default default)",
            [&o, &flags](auto flag, auto v) {
              if (v == "quick") {
                o.preset = Preset::quick;
              } else if (v == "default") {
                o.preset = Preset::standard;
              } else if (v == "full") {
                o.preset = Preset::full;
              } else {
                bad_value(flag, v, "quick, default or full");
              }
              flags.set_preset(o.preset);
            });
  flags.add("max_minutes", "M",
            "stop starting benchmarks after M minutes (> 0); the rest are reported as skipped (default no limit)",
            [&o](auto flag, auto v) {
              constexpr std::string_view accepted = "one number of minutes greater than 0, e.g. 5 or 0.5";
              double minutes = 0.0;
              try {
                minutes = parse_one_number(flag, v, -1e300, 1e300, accepted);
              } catch (const UsageError&) {
                bad_value(flag, v, accepted);
              }
              if (!(minutes > 0.0) || minutes > 1e6) bad_value(flag, v, accepted);
              o.max_minutes = minutes;
            });
  flags.add_check([&o, &flags] {
    // The core's axis: the host memory kinds of transfer and streams.
    flags.apply_preset("memory", o.memory_kinds, {HostMemoryKind::pageable, HostMemoryKind::pinned},
                       {HostMemoryKind::pageable, HostMemoryKind::pinned, HostMemoryKind::mapped});
  });
  flags.add_report([&o](nlohmann::json& j) {
    j["preset"] = to_string(o.preset);
    j["max_minutes"] = o.max_minutes;
    j["families"] = o.families;
    j["memory_kinds"] = names_of(o.memory_kinds);
    j["device"] = o.device;
    j["seed"] = o.seed;
    j["spin_timeout_ms"] = o.spin_timeout_ms;
    j["out_path"] = o.out_path;
  });
}

}  // namespace hdbench
