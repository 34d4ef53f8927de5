#include "managed/managed_options.hpp"

#include "core/axis.hpp"
#include "core/enum_names.hpp"

namespace hdbench {

const char* to_string(ManagedVariant v) noexcept {
  switch (v) {
    case ManagedVariant::demand:
      return "demand";
    case ManagedVariant::prefetch:
      return "prefetch";
    case ManagedVariant::read_mostly:
      return "read_mostly";
    case ManagedVariant::preferred_gpu:
      return "preferred_gpu";
    case ManagedVariant::accessed_by_gpu:
      return "accessed_by_gpu";
  }
  return "unknown";
}

std::vector<ManagedVariant> all_managed_variants() {
  return {ManagedVariant::demand, ManagedVariant::prefetch, ManagedVariant::read_mostly, ManagedVariant::preferred_gpu,
          ManagedVariant::accessed_by_gpu};
}

std::optional<ManagedVariant> managed_variant_from_string(std::string_view name) {
  return enum_from_name(name, all_managed_variants());
}

bool managed_variant_has_d2h(ManagedVariant v) noexcept {
  return v == ManagedVariant::demand || v == ManagedVariant::prefetch;
}

ManagedOptions default_managed_options() {
  ManagedOptions o;
  for (std::size_t bytes = 4096; bytes <= (std::size_t{1} << 30); bytes *= 4) o.sizes.push_back(bytes);
  return o;
}

void declare_managed_flags(FlagParser& flags, ManagedOptions& o, const OptionLimits& limits) {
  flags.group("managed", "unified (managed) memory: pages moved by demand faults, prefetch and advice");
  declare_axis<std::size_t>(
      flags, o.sizes,
      {.flag = "managed_sizes",
       .value_help = "SIZES",
       .description = "managed buffer sizes (default 4K:1G:x4)",
       .parse = fitting_sizes(limits),
       .quick = std::vector<std::size_t>{std::size_t{4} << 20},
       .standard = std::vector<std::size_t>{std::size_t{4} << 20, std::size_t{64} << 20, std::size_t{256} << 20},
       .report_field = "managed_sizes_bytes"});
  Axis<ManagedVariant> variants = enum_axis<ManagedVariant>(
      "managed_variants",
      "demand, prefetch, read_mostly, preferred_gpu, accessed_by_gpu (advice: the GPU reading host-written pages) "
      "(default all)",
      managed_variant_from_string, all_managed_variants());
  variants.quick = std::vector<ManagedVariant>{ManagedVariant::demand, ManagedVariant::prefetch};
  declare_axis(flags, o.variants, std::move(variants));
}

}  // namespace hdbench
