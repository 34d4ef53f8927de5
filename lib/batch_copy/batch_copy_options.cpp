#include "batch_copy/batch_copy_options.hpp"

#include "core/axis.hpp"
#include "core/enum_names.hpp"
#include "core/option_values.hpp"

namespace hdbench {

const char* to_string(BatchMethod m) noexcept {
  switch (m) {
    case BatchMethod::per_tensor:
      return "per_tensor";
    case BatchMethod::packed:
      return "packed";
    case BatchMethod::batch_api:
      return "batch_api";
    case BatchMethod::mapped_kernel:
      return "mapped_kernel";
    case BatchMethod::one_copy:
      return "one_copy";
  }
  return "unknown";
}

std::vector<BatchMethod> all_batch_methods() {
  return {BatchMethod::per_tensor, BatchMethod::packed, BatchMethod::batch_api, BatchMethod::mapped_kernel,
          BatchMethod::one_copy};
}

std::optional<BatchMethod> batch_method_from_string(std::string_view name) {
  return enum_from_name(name, all_batch_methods());
}

void declare_batch_copy_flags(FlagParser& flags, BatchCopyOptions& o) {
  flags.group("batch_copy", "a batch of K tensors (256 B to 4 MiB) moved to the GPU four ways");
  declare_axis<int>(flags, o.tensors,
                    {.flag = "batch_tensors",
                     .value_help = "LIST",
                     .description = "tensors per batch, 1..64 (default 1,2,4,8,16,32,64)",
                     .parse = [](auto flag, auto v) { return parse_int_list(flag, v, 1, 64); },
                     .quick = std::vector<int>{32},
                     .standard = std::vector<int>{1, 4, 16, 32, 64},
                     .report_field = "batch_tensors"});
  declare_axis(
      flags, o.methods,
      enum_axis<BatchMethod>("batch_methods", "per_tensor, packed, batch_api, mapped_kernel, one_copy (default all)",
                             batch_method_from_string, all_batch_methods()));
}

}  // namespace hdbench
