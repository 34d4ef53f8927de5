// The p2p family's flags: copy sizes, peer access on/off, one or both directions.
// Which GPUs: --hdbench_devices (every ordered pair of them).
#pragma once

#include <cstddef>
#include <vector>

#include "core/flags.hpp"

namespace hdbench {

struct P2pOptions {
  std::vector<std::size_t> sizes = {std::size_t{64} << 20};
  std::vector<bool> peer_access = {true, false};
  std::vector<bool> both_directions = {false, true};
};

void declare_p2p_flags(FlagParser& flags, P2pOptions& options, const OptionLimits& limits);

}  // namespace hdbench
