// What the GPU MLP step tests share (test_mlp_gpu.cpp for the cuBLASLt step,
// test_mlp_fused_gpu.cpp for the fused one): a random batch on the host and the device,
// and the tolerance check of a GPU tensor against the CPU model or the float64 reference.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <span>
#include <string>
#include <vector>

#include "core/cuda.hpp"
#include "mlp/mlp_model.hpp"

namespace hdbench::mlp_gpu_checks {

struct Batch {
  std::vector<float> images;
  std::vector<std::int32_t> labels;
  DeviceBuffer device_images;
  DeviceBuffer device_labels;
  const float* images_on_device() const { return device_images.as<const float>(); }
  const std::int32_t* labels_on_device() const { return device_labels.as<const std::int32_t>(); }
};

// Fresh random inputs in [-1, 2] and any labels, on the host and on the device.
inline Batch random_batch(const MlpShape& shape, std::size_t batch, std::uint32_t seed, cudaStream_t stream) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> pixel(-1.0f, 2.0f);
  std::uniform_int_distribution<int> label(0, shape.classes() - 1);
  Batch b;
  b.images.resize(batch * static_cast<std::size_t>(shape.inputs()));
  for (float& x : b.images) x = pixel(rng);
  for (std::size_t i = 0; i < batch; ++i) b.labels.push_back(label(rng));
  b.device_images = DeviceBuffer(b.images.size() * sizeof(float));
  b.device_labels = DeviceBuffer(b.labels.size() * sizeof(std::int32_t));
  HDBENCH_CUDA_CHECK(
      cudaMemcpyAsync(b.device_images.data(), b.images.data(), b.device_images.size(), cudaMemcpyHostToDevice, stream));
  HDBENCH_CUDA_CHECK(
      cudaMemcpyAsync(b.device_labels.data(), b.labels.data(), b.device_labels.size(), cudaMemcpyHostToDevice, stream));
  HDBENCH_CUDA_CHECK(cudaStreamSynchronize(stream));
  return b;
}

// |gpu - want| ≤ abs + rel·|want|, abs = abs_fraction × the tensor's largest |want|.
struct Tolerance {
  double abs_fraction;
  double rel;
};
inline constexpr Tolerance kFp32Tolerance{3e-5, 1e-4};

template <typename Want>
double max_abs(std::span<const Want> values) {
  double m = 0.0;
  for (Want v : values) m = std::max(m, std::abs(static_cast<double>(v)));
  return m;
}

template <typename Want>
::testing::AssertionResult close(const std::string& what, std::span<const float> gpu, std::span<const Want> want,
                                 Tolerance tolerance = kFp32Tolerance) {
  if (gpu.size() != want.size())
    return ::testing::AssertionFailure() << what << ": sizes differ, gpu " << gpu.size() << " vs " << want.size();
  const double scale = max_abs(want);
  const double abs = tolerance.abs_fraction * scale;
  std::size_t bad = 0;
  std::size_t worst = 0;
  double worst_ratio = -1.0;
  for (std::size_t i = 0; i < gpu.size(); ++i) {
    const double g = gpu[i];
    const double w = static_cast<double>(want[i]);
    const double bound = abs + tolerance.rel * std::abs(w);
    const double error = std::abs(g - w);
    if (error <= bound) continue;  // NaN fails here
    ++bad;
    const double ratio = std::isnan(error) ? std::numeric_limits<double>::infinity() : error / std::max(bound, 1e-300);
    if (ratio > worst_ratio) {
      worst_ratio = ratio;
      worst = i;
    }
  }
  if (bad == 0) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << what << ": " << bad << " of " << gpu.size()
                                       << " elements outside |gpu-want| <= " << abs << " + " << tolerance.rel
                                       << "·|want| (abs = " << tolerance.abs_fraction << " × max|want| " << scale
                                       << "); worst at [" << worst << "]: gpu " << gpu[worst] << ", want "
                                       << static_cast<double>(want[worst]);
}

// The float case without naming the type (a tensor against the CPU model's).
inline ::testing::AssertionResult close(const std::string& what, std::span<const float> gpu,
                                        std::span<const float> want, Tolerance tolerance = kFp32Tolerance) {
  return close<float>(what, gpu, want, tolerance);
}

}  // namespace hdbench::mlp_gpu_checks
