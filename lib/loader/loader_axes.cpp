#include "loader/loader_axes.hpp"

#include "core/enum_names.hpp"

namespace hdbench {

const char* to_string(LoaderConsumer consumer) noexcept {
  switch (consumer) {
    case LoaderConsumer::host:
      return "host";
    case LoaderConsumer::gpu:
      return "gpu";
  }
  return "unknown";
}

std::vector<LoaderConsumer> all_loader_consumers() { return {LoaderConsumer::host, LoaderConsumer::gpu}; }
std::optional<LoaderConsumer> loader_consumer_from_string(std::string_view name) {
  return enum_from_name(name, all_loader_consumers());
}

}  // namespace hdbench
