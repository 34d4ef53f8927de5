#include "device_local/device_local_options.hpp"

#include "core/axis.hpp"
#include "core/option_values.hpp"

namespace hdbench {

DeviceLocalOptions default_device_local_options() {
  DeviceLocalOptions o;
  for (std::size_t bytes = std::size_t{1} << 20; bytes <= (std::size_t{1} << 30); bytes *= 4) o.sizes.push_back(bytes);
  return o;
}

void declare_device_local_flags(FlagParser& flags, DeviceLocalOptions& o) {
  flags.group("device_local", "copies within one GPU's memory: the roof every GPU-side figure reads against");
  declare_axis<std::size_t>(
      flags, o.sizes,
      {.flag = "device_local_sizes",
       .value_help = "SIZES",
       .description = "copy sizes in device memory (default 1M:1G:x4)",
       .parse = [](auto flag, auto v) { return parse_size_list(flag, v); },
       .quick = std::vector<std::size_t>{std::size_t{64} << 20},
       .standard = std::vector<std::size_t>{std::size_t{16} << 20, std::size_t{256} << 20, std::size_t{1} << 30},
       .report_field = "device_local_sizes_bytes"});
  declare_axis<bool>(flags, o.sm_engine,
                     {.flag = "device_local_sm",
                      .value_help = "LIST",
                      .description = "off (the copy engine), on (an SM copy kernel) (default off,on)",
                      .parse = [](auto flag, auto v) { return parse_switch_list(flag, v); },
                      .report_field = "device_local_sm"});
}

}  // namespace hdbench
