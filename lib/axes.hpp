// The named axes benchmarks are declared over, with their spellings on the command
// line and in reports.
#pragma once

#include <optional>
#include <string_view>
#include <vector>

#include "host_memory.hpp"

namespace hdbench {

enum class Direction { h2d, d2h, bidir };
enum class Engine {
  copy,  // the DMA copy engines, driven by cudaMemcpyAsync
  sm,    // a kernel loading and storing through mapped host memory (zero-copy)
};
// How a chunked pipeline queues its work (streams family).
enum class IssueOrder {
  by_chunk,  // each chunk's three stages together, chunk after chunk
  by_stage,  // every chunk's H2D, then every kernel, then every D2H
};

// The loader family (loader.hpp): where worker threads build batches and how they
// reach page-locked memory.
enum class PinMode {
  pageable,    // workers collate into pageable slots; the driver stages the copy
  pin_thread,  // PyTorch's pin_memory=True: pageable slots, one pin thread copies into pinned slots
  direct,      // workers collate straight into a ring of pinned slots; no extra copy
};
// Per-sample augmentation (sample_transform.hpp).
enum class Augment {
  none,
  crop_flip,  // a random crop of the zero-padded image (a shift), and a horizontal flip for half
};
// What consumes the loader's batches.
enum class LoaderConsumer {
  host,  // a checksum on the CPU: runs without a GPU
  gpu,   // an async H2D copy and a checksum kernel on the device
};

// The MLP family (mlp_model.hpp): where a training step runs, and where its batch is
// when the step starts.
enum class Processor { cpu, gpu };
enum class BatchSource {
  device,    // already on the device (on the CPU: in host memory, where the step reads it)
  pageable,  // in pageable host memory: the step copies it first, the driver stages it
  pinned,    // in page-locked host memory: the step copies it first, by DMA
};

const char* to_string(Direction direction) noexcept;
const char* to_string(Engine engine) noexcept;
std::optional<Direction> direction_from_string(std::string_view name);
std::optional<Engine> engine_from_string(std::string_view name);
std::vector<Direction> all_directions();
std::vector<Engine> all_engines();
const char* to_string(IssueOrder order) noexcept;
std::optional<IssueOrder> issue_order_from_string(std::string_view name);
std::vector<IssueOrder> all_issue_orders();
const char* to_string(PinMode mode) noexcept;
std::optional<PinMode> pin_mode_from_string(std::string_view name);
std::vector<PinMode> all_pin_modes();
const char* to_string(Augment augment) noexcept;
std::optional<Augment> augment_from_string(std::string_view name);
std::vector<Augment> all_augments();
const char* to_string(LoaderConsumer consumer) noexcept;
std::optional<LoaderConsumer> loader_consumer_from_string(std::string_view name);
std::vector<LoaderConsumer> all_loader_consumers();
const char* to_string(Processor processor) noexcept;
std::optional<Processor> processor_from_string(std::string_view name);
std::vector<Processor> all_processors();
const char* to_string(BatchSource source) noexcept;
std::optional<BatchSource> batch_source_from_string(std::string_view name);
std::vector<BatchSource> all_batch_sources();

// Which host memory kinds an engine is measured with: the copy engine with every
// kind but `mapped` (to a DMA engine it is plain pinned memory); the SM engine with
// the kinds a kernel can dereference over the bus.
bool engine_uses_kind(Engine engine, HostMemoryKind kind) noexcept;

}  // namespace hdbench
