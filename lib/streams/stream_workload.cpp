#include "streams/stream_workload.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstring>
#include <functional>
#include <stdexcept>

#include "core/host_pattern.hpp"
#include "core/measure.hpp"
#include "core/timing.hpp"
#include "stream_kernels.hpp"
#include "streams/stream_reference.hpp"

namespace hdbench {
namespace {

constexpr unsigned char kPoisonByte = 0xA5;

std::size_t checked_size(std::size_t bytes) {
  if (bytes == 0 || bytes % sizeof(std::uint32_t) != 0) {
    throw std::invalid_argument(fmt::format("StreamWorkload: {} bytes is not a positive multiple of 4", bytes));
  }
  return bytes;
}

}  // namespace

StreamWorkload::StreamWorkload(HostMemoryKind kind, std::size_t bytes, std::uint64_t seed)
    : bytes_(checked_size(bytes)),
      host_in_(kind, bytes),
      host_out_(kind, bytes),
      device_in_(bytes),
      device_out_(bytes) {
  fill_pattern_host(host_in_.data(), bytes, seed);
  fill_device_bytes(device_in_.data(), 0, bytes);
  poison_outputs();
}

PipelineBuffers StreamWorkload::buffers() const noexcept {
  return {host_in_.as<const std::uint32_t>(), host_out_.as<std::uint32_t>(), device_in_.as<std::uint32_t>(),
          device_out_.as<std::uint32_t>(), words()};
}

void StreamWorkload::poison_outputs() const {
  std::memset(host_out_.data(), kPoisonByte, bytes_);
  fill_device_bytes(device_out_.data(), kPoisonByte, bytes_);
  HDBENCH_CUDA_CHECK(cudaDeviceSynchronize());
}

std::string StreamWorkload::verify(const std::vector<std::uint32_t>& expected) const {
  if (expected.size() != words()) {
    return fmt::format("expected output has {} words, the buffer {}", expected.size(), words());
  }
  const auto bad = find_word_mismatch(host_output(), expected.data(), words());
  if (!bad) return {};
  return fmt::format("output word {} (byte offset {}) is {:#010x}, the CPU reference says {:#010x}", *bad,
                     *bad * sizeof(std::uint32_t), host_output()[*bad], expected[*bad]);
}

std::vector<std::uint32_t> expected_output(const std::uint32_t* input, std::size_t words, int rounds) {
  std::vector<std::uint32_t> out(words);
  process_words_cpu(input, out.data(), words, rounds);
  return out;
}

int KernelCalibration::rounds_for(double ratio) const {
  return rounds_for_seconds(model, ratio * h2d_seconds, kMaxKernelRounds);
}

KernelCalibration calibrate_kernel(std::size_t bytes) {
  const std::size_t words = checked_size(bytes) / sizeof(std::uint32_t);
  HostBuffer host(HostMemoryKind::pinned, bytes);
  std::memset(host.data(), 0, bytes);
  DeviceBuffer in(bytes);
  DeviceBuffer out(bytes);
  Stream stream("calibration");
  HDBENCH_CUDA_CHECK(cudaMemsetAsync(in.data(), 0, bytes, stream.get()));
  // Median of three, after one untimed run that absorbs first-use costs.
  const auto seconds = [&](const std::function<void()>& enqueue) {
    enqueue();
    return median_stream_seconds(stream.get(), 3, enqueue);
  };
  const auto kernel_seconds = [&](int rounds) {
    return seconds(
        [&] { kernels::process_words(in.as<std::uint32_t>(), out.as<std::uint32_t>(), words, rounds, stream.get()); });
  };
  KernelCalibration result;
  result.h2d_seconds = seconds([&] {
    HDBENCH_CUDA_CHECK(cudaMemcpyAsync(in.data(), host.data(), bytes, cudaMemcpyHostToDevice, stream.get()));
  });
  // The second point needs enough rounds to stand well clear of launch overhead and
  // memory time; grow it until the difference is unmistakable.
  constexpr int kLowRounds = 4;
  const double low = kernel_seconds(kLowRounds);
  int high_rounds = 64;
  double high = kernel_seconds(high_rounds);
  while (high - low < std::max(2e-4, 0.5 * low) && high_rounds < kMaxKernelRounds) {
    high_rounds = std::min(high_rounds * 4, kMaxKernelRounds);
    high = kernel_seconds(high_rounds);
  }
  // At few rounds the kernel is bound by memory, not arithmetic, so the line is drawn
  // through two points where arithmetic dominates: `high_rounds` and twice that.
  int first_rounds = kLowRounds;
  double first = low;
  if (high_rounds < kMaxKernelRounds) {
    first_rounds = high_rounds;
    first = high;
    high_rounds = std::min(2 * high_rounds, kMaxKernelRounds);
    high = kernel_seconds(high_rounds);
  }
  const auto model = fit_rounds_model(first_rounds, first, high_rounds, high);
  if (!model) {
    throw std::runtime_error(
        fmt::format("kernel calibration failed: {} rounds took {:.1f} us and {} rounds {:.1f} us over {} bytes; "
                    "what to do: rerun on an idle GPU",
                    first_rounds, first * 1e6, high_rounds, high * 1e6, bytes));
  }
  result.model = *model;
  return result;
}

}  // namespace hdbench
