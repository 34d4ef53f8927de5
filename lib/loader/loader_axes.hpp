// The loader family's axes.
#pragma once

#include <optional>
#include <string_view>
#include <vector>

namespace hdbench {

// What consumes the loader's batches.
enum class LoaderConsumer {
  host,  // a checksum on the CPU: runs without a GPU
  gpu,   // an async H2D copy and a checksum kernel on the device
};

const char* to_string(LoaderConsumer consumer) noexcept;
std::optional<LoaderConsumer> loader_consumer_from_string(std::string_view name);
std::vector<LoaderConsumer> all_loader_consumers();

}  // namespace hdbench
