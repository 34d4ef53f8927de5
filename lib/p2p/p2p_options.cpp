#include "p2p/p2p_options.hpp"

#include "core/axis.hpp"
#include "core/option_values.hpp"

namespace hdbench {

void declare_p2p_flags(FlagParser& flags, P2pOptions& o, const OptionLimits& limits) {
  flags.group("p2p", "GPU-to-GPU copies between every ordered pair of --hdbench_devices");
  declare_axis<std::size_t>(flags, o.sizes,
                            {.flag = "p2p_sizes",
                             .value_help = "LIST",
                             .description = "copy sizes, e.g. 1M,64M (default 64MiB)",
                             .parse = fitting_sizes(limits),
                             .quick = std::vector<std::size_t>{std::size_t{16} << 20},
                             .report_field = "p2p_sizes"});
  declare_axis<bool>(flags, o.peer_access,
                     {.flag = "p2p_peer_access",
                      .value_help = "LIST",
                      .description = "on (cudaDeviceEnablePeerAccess), off (staged by the driver) (default on,off)",
                      .parse = [](auto flag, auto v) { return parse_switch_list(flag, v); },
                      .report_field = "p2p_peer_access"});
  declare_axis<bool>(flags, o.both_directions,
                     {.flag = "p2p_both_directions",
                      .value_help = "LIST",
                      .description = "off (one direction), on (both at once) (default off,on)",
                      .parse = [](auto flag, auto v) { return parse_switch_list(flag, v); },
                      .report_field = "p2p_both_directions"});
}

}  // namespace hdbench
