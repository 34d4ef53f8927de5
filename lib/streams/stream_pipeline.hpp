// The streams family's workload: copy a host buffer to the GPU, run a kernel over it,
// copy the result back, either in one piece or split into chunks spread over several
// streams so copies of one chunk overlap the kernel of another. The same object also
// queues each stage alone (for the ideal time) and records per-stage timestamps (to
// show the overlap), and its work can be captured into a CUDA graph.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/chunking.hpp"
#include "core/cuda.hpp"
#include "core/overlap.hpp"
#include "streams/streams_axes.hpp"

namespace hdbench {

enum class CopyApi {
  sync,   // cudaMemcpy + kernel + cudaMemcpy on the legacy default stream
  async,  // cudaMemcpyAsync on created streams
};
// A one-thread "bookkeeping" kernel queued after every chunk's kernel, the way real
// programs sprinkle small launches on the default stream.
enum class SideLaunch { none, legacy_default, per_thread_default };

const char* to_string(SideLaunch side) noexcept;

struct PipelineShape {
  CopyApi api = CopyApi::async;
  int streams = 1;
  int chunks = 1;
  IssueOrder order = IssueOrder::by_chunk;
  // Created with cudaStreamDefault instead of cudaStreamNonBlocking: such streams
  // synchronise with the legacy default stream.
  bool blocking_streams = false;
  SideLaunch side = SideLaunch::none;
};

// host_in → device_in → kernel → device_out → host_out, `words` 32-bit words each.
struct PipelineBuffers {
  const std::uint32_t* host_in = nullptr;
  std::uint32_t* host_out = nullptr;
  std::uint32_t* device_in = nullptr;
  std::uint32_t* device_out = nullptr;
  std::size_t words = 0;
};

// `chunks` near-equal pieces of [0, words) in words, each starting on a 256-byte
// boundary where the size allows; empty pieces (more chunks than the buffer can fill)
// are dropped. Throws std::invalid_argument for chunks < 1.
std::vector<Chunk> pipeline_chunks(std::size_t words, int chunks);

// Start and end events around every stage of every chunk, against a base event, so
// a run's timeline can be read back. The events bound each stage from above: a stage
// that waits for an engine after its start event counts the wait as running.
class StageTimeline {
 public:
  explicit StageTimeline(std::size_t chunks);
  void record_base(cudaStream_t stream) const;
  void record(bool start, std::size_t chunk, Stage stage, cudaStream_t stream) const;
  // Waits for the events; milliseconds since the base event.
  std::vector<StageInterval> intervals() const;

 private:
  std::size_t chunks_;
  Event base_;
  std::vector<Event> starts_;  // index chunk * 3 + stage
  std::vector<Event> ends_;
};

class Pipeline {
 public:
  // `rounds` of arithmetic per word (kernels/stream_work.hpp). `name` prefixes the NVTX
  // ranges ("<name>/chunk 3/h2d"). The buffers must outlive the pipeline.
  Pipeline(const PipelineBuffers& buffers, const PipelineShape& shape, int rounds, const std::string& name);

  // Where timing events go and completion is awaited: the legacy default stream for
  // the sync API, otherwise the stream every pipeline stream forks from and joins.
  cudaStream_t origin() const noexcept;
  const PipelineShape& shape() const noexcept { return shape_; }
  std::size_t chunk_count() const noexcept { return chunks_.size(); }
  std::size_t stream_count() const noexcept { return streams_.size(); }

  // Queues the whole workload after what is already on origin(); origin's later work
  // waits for all of it. With a timeline, every stage is bracketed by its events.
  void enqueue(const StageTimeline* timeline = nullptr) const;
  // Queues every chunk of one stage on origin(), with nothing else (no side launches):
  // a stage's time alone.
  void enqueue_stage_alone(Stage stage) const;
  // Captures enqueue() into a graph (async API without side launches only; otherwise
  // std::logic_error, since the legacy stream cannot join a capture).
  GraphExec capture_graph() const;

  // Side launches completed so far (synchronises the device).
  unsigned side_launches_completed() const;

 private:
  void enqueue_chunk_stage(std::size_t chunk, Stage stage, cudaStream_t stream, const StageTimeline* timeline,
                           bool with_side) const;
  cudaStream_t side_stream() const noexcept;

  PipelineBuffers buffers_;
  PipelineShape shape_;
  int rounds_;
  std::vector<Chunk> chunks_;
  std::vector<std::string> range_names_;  // index chunk * 3 + stage, built once
  std::optional<Stream> origin_;          // empty for the sync API
  std::vector<Stream> streams_;
  Event fork_{cudaEventDisableTiming};
  std::vector<Event> joins_;
  Event side_join_{cudaEventDisableTiming};
  DeviceBuffer side_counter_;
};

}  // namespace hdbench
