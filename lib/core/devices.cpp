#include "core/devices.hpp"

#include <fmt/format.h>

#include "core/option_values.hpp"

namespace hdbench {

void declare_device_flags(FlagParser& flags, DeviceSelection& s) {
  flags.group("devices",
              "GPUs: each single-GPU benchmark runs on each; the multi-device benchmarks (transfer "
              "all_to_host/host_to_all, p2p, NCCL all-reduce) use them together");
  flags.add("devices", "all|LIST", "GPU indices, or all (default: the device of --hdbench_device)",
            [&s](auto flag, auto v) {
              if (v == "all") {
                s = {true, {}};
                return;
              }
              s = {false, parse_int_list(flag, v, 0, 1023)};  // a repeated index counts once
            });
  flags.add_report([&s](nlohmann::json& j) {
    j["devices"] =
        s.all ? nlohmann::json("all") : (s.list.empty() ? nlohmann::json("default") : nlohmann::json(s.list));
  });
}

std::vector<int> resolve_devices(const DeviceSelection& s, int default_device, int gpu_count) {
  if (s.all) {
    std::vector<int> all;
    for (int d = 0; d < gpu_count; ++d) all.push_back(d);
    return all.empty() ? std::vector<int>{default_device} : all;
  }
  if (s.list.empty()) return {default_device};
  if (gpu_count > 0) {
    for (const int d : s.list) {
      if (d >= gpu_count) {
        throw UsageError(
            fmt::format("--hdbench_devices: {} is not valid; accepted: 0 to {} on this machine", d, gpu_count - 1));
      }
    }
  }
  return s.list;
}

}  // namespace hdbench
