#include "latency/latency_options.hpp"

#include "core/axis.hpp"
#include "core/enum_names.hpp"
#include "core/option_values.hpp"

namespace hdbench {

const char* to_string(ChaseMemory m) noexcept {
  switch (m) {
    case ChaseMemory::mapped_host:
      return "mapped_host";
    case ChaseMemory::device:
      return "device";
  }
  return "unknown";
}

std::vector<ChaseMemory> all_chase_memories() { return {ChaseMemory::mapped_host, ChaseMemory::device}; }

std::optional<ChaseMemory> chase_memory_from_string(std::string_view name) {
  return enum_from_name(name, all_chase_memories());
}

void declare_latency_flags(FlagParser& flags, LatencyOptions& o) {
  flags.group("latency", "small copies as latency, and a pointer chase over host and device memory");
  declare_axis<std::size_t>(flags, o.sizes,
                            {.flag = "latency_sizes",
                             .value_help = "SIZES",
                             .description = "sizes of the one-copy latency, 1 B..64 KiB (default 4,64,1K,4K,64K)",
                             .parse =
                                 [](auto flag, auto v) {
                                   std::vector<std::size_t> sizes = parse_size_list(flag, v);
                                   for (const std::size_t s : sizes) {
                                     if (s > 65536) {
                                       throw UsageError(fmt::format(
                                           "--hdbench_{}: {} is above 64K; larger copies are bandwidth, measured by "
                                           "the transfer family",
                                           flag, s));
                                     }
                                   }
                                   return sizes;
                                 },
                             .quick = std::vector<std::size_t>{4},
                             .standard = std::vector<std::size_t>{4, 4096, 65536},
                             .report_field = "latency_sizes_bytes"});
  Axis<HostMemoryKind> memory =
      enum_axis<HostMemoryKind>("latency_memory",
                                "host memory of the small copies: pageable, registered, pinned, pinned_wc, mapped "
                                "(default pinned,pageable)",
                                host_memory_kind_from_string, all_host_memory_kinds());
  memory.quick = std::vector<HostMemoryKind>{HostMemoryKind::pinned};
  declare_axis(flags, o.memory, std::move(memory));
  declare_axis(
      flags, o.chases,
      enum_axis<ChaseMemory>("latency_chases", "where the chased chain lives: mapped_host, device (default both)",
                             chase_memory_from_string, all_chase_memories()));
}

}  // namespace hdbench
