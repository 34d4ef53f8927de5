#include "mlp/mlp_axes.hpp"

#include "core/enum_names.hpp"

namespace hdbench {

const char* to_string(Processor processor) noexcept { return processor == Processor::cpu ? "cpu" : "gpu"; }

const char* to_string(BatchSource source) noexcept {
  switch (source) {
    case BatchSource::device:
      return "device";
    case BatchSource::pageable:
      return "pageable";
    case BatchSource::pinned:
      return "pinned";
  }
  return "unknown";
}

std::vector<Processor> all_processors() { return {Processor::cpu, Processor::gpu}; }
std::vector<BatchSource> all_batch_sources() {
  return {BatchSource::device, BatchSource::pageable, BatchSource::pinned};
}
std::optional<Processor> processor_from_string(std::string_view name) { return enum_from_name(name, all_processors()); }
std::optional<BatchSource> batch_source_from_string(std::string_view name) {
  return enum_from_name(name, all_batch_sources());
}

}  // namespace hdbench
