// The managed family's flags: the sizes of the managed buffer and which ways its pages
// move (demand migration, prefetch, memory advice).
#pragma once

#include <cstddef>
#include <optional>
#include <string_view>
#include <vector>

#include "core/flags.hpp"
#include "core/option_values.hpp"

namespace hdbench {

// How a managed buffer's pages reach the processor that reads them.
enum class ManagedVariant {
  demand,           // faults migrate the pages on first touch
  prefetch,         // cudaMemPrefetchAsync moves them before (the timed part is the prefetch)
  read_mostly,      // cudaMemAdviseSetReadMostly: the GPU gets read-only copies (h2d only)
  preferred_gpu,    // cudaMemAdviseSetPreferredLocation on the GPU (h2d only)
  accessed_by_gpu,  // cudaMemAdviseSetAccessedBy the GPU: mapped, read over the link (h2d only)
};

const char* to_string(ManagedVariant v) noexcept;
std::optional<ManagedVariant> managed_variant_from_string(std::string_view name);
std::vector<ManagedVariant> all_managed_variants();
// Advice applies to the GPU reading host-written pages; the host reads back on demand or
// after a prefetch only.
bool managed_variant_has_d2h(ManagedVariant v) noexcept;

struct ManagedOptions {
  std::vector<std::size_t> sizes;  // 4 KiB to 1 GiB by 4x (the full preset)
  std::vector<ManagedVariant> variants = all_managed_variants();
};

ManagedOptions default_managed_options();
void declare_managed_flags(FlagParser& flags, ManagedOptions& options, const OptionLimits& limits);

}  // namespace hdbench
