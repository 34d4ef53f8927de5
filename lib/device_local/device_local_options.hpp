// The device_local family's flags: copy sizes and engines within one GPU.
#pragma once

#include <cstddef>
#include <vector>

#include "core/flags.hpp"

namespace hdbench {

struct DeviceLocalOptions {
  std::vector<std::size_t> sizes;               // 1 MiB to 1 GiB by 4x (the full preset)
  std::vector<bool> sm_engine = {false, true};  // off: the copy engine (cudaMemcpyAsync); on: an SM copy kernel
};

DeviceLocalOptions default_device_local_options();
void declare_device_local_flags(FlagParser& flags, DeviceLocalOptions& options);

}  // namespace hdbench
