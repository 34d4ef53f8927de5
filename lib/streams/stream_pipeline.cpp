#include "streams/stream_pipeline.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <stdexcept>

#include "core/nvtx.hpp"
#include "stream_kernels.hpp"
#include "streams/streams_description.hpp"

namespace hdbench {
namespace {

constexpr std::size_t kStages = 3;
// 64 words = 256 bytes: chunk starts stay aligned for the copy engines and the kernel.
constexpr std::size_t kChunkAlignmentWords = 64;

std::size_t slot(std::size_t chunk, Stage stage) { return chunk * kStages + static_cast<std::size_t>(stage); }

}  // namespace

const char* to_string(SideLaunch side) noexcept {
  switch (side) {
    case SideLaunch::none:
      return "none";
    case SideLaunch::legacy_default:
      return "legacy_default_stream";
    case SideLaunch::per_thread_default:
      return "per_thread_default_stream";
  }
  return "unknown";
}

std::vector<Chunk> pipeline_chunks(std::size_t words, int chunks) {
  if (chunks < 1) throw std::invalid_argument("pipeline_chunks: the chunk count must be at least 1");
  std::vector<Chunk> pieces = split_evenly(words, static_cast<std::size_t>(chunks), kChunkAlignmentWords);
  std::erase_if(pieces, [](const Chunk& c) { return c.bytes == 0; });
  return pieces;
}

StageTimeline::StageTimeline(std::size_t chunks) : chunks_(chunks) {
  starts_.reserve(chunks * kStages);
  ends_.reserve(chunks * kStages);
  for (std::size_t i = 0; i < chunks * kStages; ++i) {
    starts_.emplace_back();
    ends_.emplace_back();
  }
}

void StageTimeline::record_base(cudaStream_t stream) const { base_.record(stream); }

void StageTimeline::record(bool start, std::size_t chunk, Stage stage, cudaStream_t stream) const {
  if (chunk >= chunks_) throw std::out_of_range("StageTimeline: chunk index beyond the timeline");
  (start ? starts_ : ends_)[slot(chunk, stage)].record(stream);
}

std::vector<StageInterval> StageTimeline::intervals() const {
  std::vector<StageInterval> result;
  for (std::size_t chunk = 0; chunk < chunks_; ++chunk) {
    for (Stage stage : kAllStages) {
      const std::size_t i = slot(chunk, stage);
      result.push_back({stage, static_cast<int>(chunk), elapsed_ms(base_, starts_[i]), elapsed_ms(base_, ends_[i])});
    }
  }
  return result;
}

Pipeline::Pipeline(const PipelineBuffers& buffers, const PipelineShape& shape, int rounds, const std::string& name)
    : buffers_(buffers), shape_(shape), rounds_(rounds), chunks_(pipeline_chunks(buffers.words, shape.chunks)) {
  if (shape.streams < 1) throw std::invalid_argument("Pipeline: the stream count must be at least 1");
  if (rounds < 0) throw std::invalid_argument("Pipeline: rounds must not be negative");
  if (shape.api == CopyApi::sync && (shape.streams != 1 || shape.side != SideLaunch::none)) {
    throw std::invalid_argument("Pipeline: the sync API runs on the legacy default stream alone");
  }
  for (std::size_t c = 0; c < chunks_.size(); ++c) {
    for (Stage stage : kAllStages) range_names_.push_back(fmt::format("{}/chunk {}/{}", name, c, to_string(stage)));
  }
  if (shape.api == CopyApi::async) {
    origin_.emplace("origin", cudaStreamNonBlocking);
    const unsigned flags = shape.blocking_streams ? cudaStreamDefault : cudaStreamNonBlocking;
    const std::size_t used =
        std::min<std::size_t>(static_cast<std::size_t>(shape.streams), std::max<std::size_t>(1, chunks_.size()));
    for (std::size_t s = 0; s < used; ++s) {
      streams_.emplace_back(fmt::format("stream {}", s), flags);
      joins_.emplace_back(cudaEventDisableTiming);
    }
  }
  if (shape.side != SideLaunch::none) {
    side_counter_ = DeviceBuffer(sizeof(unsigned));
    fill_device_bytes(side_counter_.data(), 0, sizeof(unsigned));
  }
}

cudaStream_t Pipeline::origin() const noexcept { return origin_ ? origin_->get() : cudaStreamLegacy; }

cudaStream_t Pipeline::side_stream() const noexcept {
  return shape_.side == SideLaunch::per_thread_default ? cudaStreamPerThread : cudaStreamLegacy;
}

void Pipeline::enqueue_chunk_stage(std::size_t chunk, Stage stage, cudaStream_t stream, const StageTimeline* timeline,
                                   bool with_side) const {
  const Chunk& c = chunks_[chunk];
  const std::size_t bytes = c.bytes * sizeof(std::uint32_t);
  nvtx::ScopedRange range(kStreamsNvtx, range_names_[slot(chunk, stage)], bytes);
  if (timeline != nullptr) timeline->record(true, chunk, stage, stream);
  // The copy as the variant's API issues it: cudaMemcpy blocks the host, cudaMemcpyAsync queues.
  const auto copy = [&](void* dst, const void* src, cudaMemcpyKind kind) {
    const cudaError_t status = shape_.api == CopyApi::sync ? cudaMemcpy(dst, src, bytes, kind)
                                                           : cudaMemcpyAsync(dst, src, bytes, kind, stream);
    if (status != cudaSuccess) {
      throw_cuda_error(status, shape_.api == CopyApi::sync ? "cudaMemcpy" : "cudaMemcpyAsync", __FILE__, __LINE__,
                       fmt::format("{}, chunk {} of {}, {} bytes", to_string(stage), chunk, chunks_.size(), bytes));
    }
  };
  switch (stage) {
    case Stage::h2d:
      copy(buffers_.device_in + c.offset, buffers_.host_in + c.offset, cudaMemcpyHostToDevice);
      break;
    case Stage::kernel:
      kernels::process_words(buffers_.device_in + c.offset, buffers_.device_out + c.offset, c.bytes, rounds_, stream);
      break;
    case Stage::d2h:
      copy(buffers_.host_out + c.offset, buffers_.device_out + c.offset, cudaMemcpyDeviceToHost);
      break;
  }
  if (timeline != nullptr) timeline->record(false, chunk, stage, stream);
  if (with_side && stage == Stage::kernel && shape_.side != SideLaunch::none) {
    kernels::tally(side_counter_.as<unsigned>(), side_stream());
  }
}

void Pipeline::enqueue(const StageTimeline* timeline) const {
  if (timeline != nullptr) timeline->record_base(origin());
  if (shape_.api == CopyApi::sync) {
    for (std::size_t c = 0; c < chunks_.size(); ++c) {
      for (Stage stage : kAllStages) enqueue_chunk_stage(c, stage, cudaStreamLegacy, timeline, true);
    }
    return;
  }
  fork_.record(origin());
  for (const Stream& s : streams_) HDBENCH_CUDA_CHECK(cudaStreamWaitEvent(s.get(), fork_.get(), 0));
  const auto stream_of = [&](std::size_t chunk) { return streams_[chunk % streams_.size()].get(); };
  if (shape_.order == IssueOrder::by_chunk) {
    for (std::size_t c = 0; c < chunks_.size(); ++c) {
      for (Stage stage : kAllStages) enqueue_chunk_stage(c, stage, stream_of(c), timeline, true);
    }
  } else {
    for (Stage stage : kAllStages) {
      for (std::size_t c = 0; c < chunks_.size(); ++c) enqueue_chunk_stage(c, stage, stream_of(c), timeline, true);
    }
  }
  for (std::size_t s = 0; s < streams_.size(); ++s) {
    joins_[s].record(streams_[s].get());
    HDBENCH_CUDA_CHECK(cudaStreamWaitEvent(origin(), joins_[s].get(), 0));
  }
  // The side launches belong to the workload: the timed region ends after them too.
  if (shape_.side != SideLaunch::none) {
    side_join_.record(side_stream());
    HDBENCH_CUDA_CHECK(cudaStreamWaitEvent(origin(), side_join_.get(), 0));
  }
}

void Pipeline::enqueue_stage_alone(Stage stage) const {
  for (std::size_t c = 0; c < chunks_.size(); ++c) enqueue_chunk_stage(c, stage, origin(), nullptr, false);
}

GraphExec Pipeline::capture_graph() const {
  if (shape_.api != CopyApi::async || shape_.side != SideLaunch::none) {
    throw std::logic_error("Pipeline::capture_graph: only async pipelines without side launches can be captured");
  }
  return GraphExec::capture(origin(), [this] { enqueue(); });
}

unsigned Pipeline::side_launches_completed() const {
  if (shape_.side == SideLaunch::none) return 0;
  HDBENCH_CUDA_CHECK(cudaDeviceSynchronize());
  unsigned count = 0;
  HDBENCH_CUDA_CHECK(cudaMemcpy(&count, side_counter_.data(), sizeof(count), cudaMemcpyDeviceToHost));
  return count;
}

}  // namespace hdbench
