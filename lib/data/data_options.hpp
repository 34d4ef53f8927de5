// The dataset both the loader and the mlp families read: the synthetic MNIST-shaped
// set's size, or a folder of MNIST IDX files.
#pragma once

#include <cstddef>
#include <string>

#include "core/flags.hpp"

namespace hdbench {

struct DataOptions {
  std::size_t loader_samples = 60000;
  std::string mnist_dir;  // empty: the synthetic MNIST-shaped set
};

void declare_data_flags(FlagParser& flags, DataOptions& options);

}  // namespace hdbench
