// The MLP family's run axes: where a training step runs, and where its batch is when
// the step starts (the model's own axes, dtype, optimizer and mode, are in mlp_model.hpp).
#pragma once

#include <optional>
#include <string_view>
#include <vector>

namespace hdbench {

enum class Processor { cpu, gpu };
enum class BatchSource {
  device,    // already on the device (on the CPU: in host memory, where the step reads it)
  pageable,  // in pageable host memory: the step copies it first, the driver stages it
  pinned,    // in page-locked host memory: the step copies it first, by DMA
};

const char* to_string(Processor processor) noexcept;
std::optional<Processor> processor_from_string(std::string_view name);
std::vector<Processor> all_processors();
const char* to_string(BatchSource source) noexcept;
std::optional<BatchSource> batch_source_from_string(std::string_view name);
std::vector<BatchSource> all_batch_sources();

}  // namespace hdbench
