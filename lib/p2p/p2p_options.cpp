#include "p2p/p2p_options.hpp"

#include "core/option_values.hpp"

namespace hdbench {

void declare_p2p_flags(FlagParser& flags, P2pOptions& o, const OptionLimits& limits) {
  flags.group("p2p", "GPU-to-GPU copies between every ordered pair of --hdbench_devices");
  flags.add("p2p_sizes", "LIST", "copy sizes, e.g. 1M,64M (default 64MiB)", [&o, limits](auto flag, auto v) {
    o.sizes = parse_size_list(flag, v);
    check_sizes_fit(flag, o.sizes, limits);
  });
  flags.add("p2p_peer_access", "LIST", "on (cudaDeviceEnablePeerAccess), off (staged by the driver) (default on,off)",
            [&o](auto flag, auto v) { o.peer_access = parse_switch_list(flag, v); });
  flags.add("p2p_both_directions", "LIST", "off (one direction), on (both at once) (default off,on)",
            [&o](auto flag, auto v) { o.both_directions = parse_switch_list(flag, v); });
  flags.add_check([&o, &flags] { flags.apply_preset("p2p_sizes", o.sizes, {std::size_t{16} << 20}, o.sizes); });
  flags.add_report([&o](nlohmann::json& j) {
    j["p2p_sizes"] = o.sizes;
    j["p2p_peer_access"] = o.peer_access;
    j["p2p_both_directions"] = o.both_directions;
  });
}

}  // namespace hdbench
