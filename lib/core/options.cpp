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
  flags.add_report([&o](nlohmann::json& j) {
    j["families"] = o.families;
    j["memory_kinds"] = names_of(o.memory_kinds);
    j["device"] = o.device;
    j["seed"] = o.seed;
    j["spin_timeout_ms"] = o.spin_timeout_ms;
    j["out_path"] = o.out_path;
  });
}

}  // namespace hdbench
