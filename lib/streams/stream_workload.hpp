// The data of the streams family: a host input holding the seeded pattern, a
// poisoned host output, their device twins, the CPU reference of the result, and
// the calibration that sets the kernel's arithmetic so it takes a chosen multiple of
// the copy time on this GPU.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "core/cuda.hpp"
#include "core/host_memory.hpp"
#include "streams/pipeline_model.hpp"
#include "streams/stream_pipeline.hpp"

namespace hdbench {

class StreamWorkload {
 public:
  // `bytes` must be a positive multiple of 4. Host memory is first-touched here, so
  // allocation and page faults stay out of the timings. Throws CudaError/bad_alloc
  // when memory is short, std::invalid_argument for a bad size.
  StreamWorkload(HostMemoryKind kind, std::size_t bytes, std::uint64_t seed);

  PipelineBuffers buffers() const noexcept;
  std::size_t words() const noexcept { return bytes_ / sizeof(std::uint32_t); }
  const std::uint32_t* host_input() const noexcept { return host_in_.as<const std::uint32_t>(); }
  const std::uint32_t* host_output() const noexcept { return host_out_.as<const std::uint32_t>(); }
  const HostBuffer& host_in() const noexcept { return host_in_; }

  // Overwrites both outputs with a value no run leaves behind by accident, so a check
  // afterwards proves the run wrote every word.
  void poison_outputs() const;
  // Empty when the host output equals `expected`, else which word differs and how.
  std::string verify(const std::vector<std::uint32_t>& expected) const;

 private:
  std::size_t bytes_;
  HostBuffer host_in_;
  HostBuffer host_out_;
  DeviceBuffer device_in_;
  DeviceBuffer device_out_;
};

// The result the GPU must produce from `input` (CPU, several threads).
std::vector<std::uint32_t> expected_output(const std::uint32_t* input, std::size_t words, int rounds);

// Rounds above this would make the CPU reference take minutes per buffer.
inline constexpr int kMaxKernelRounds = 1 << 14;

struct KernelCalibration {
  double h2d_seconds = 0.0;  // the whole buffer from pinned memory, one cudaMemcpyAsync
  RoundsModel model;         // the kernel over the whole buffer
  // Rounds for a kernel that takes `ratio` times the H2D copy.
  int rounds_for(double ratio) const;
};

// Measures, on the current device, the pinned H2D copy of `bytes` and the kernel's
// time at two round counts. Throws std::runtime_error when the kernel's time does not
// grow with its rounds.
KernelCalibration calibrate_kernel(std::size_t bytes);

}  // namespace hdbench
