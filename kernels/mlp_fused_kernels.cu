#include <climits>
#include <cmath>
#include <cstdint>
#include <stdexcept>
#include <string>

#include "launch_check.hpp"
#include "mlp_fused_kernels.hpp"
#include "mlp_update.cuh"

namespace hdbench::kernels {
namespace {

constexpr int kWarp = 32;
constexpr int kWarps = kFusedThreads / kWarp;
constexpr int kSamples = kFusedSamplesPerBlock;
// Kernel 2's dW1 tiles: 32 input columns (a lane each) × 16 hidden rows (2 a warp),
// the batch streamed through shared memory kBatchChunk samples at a time.
constexpr int kTileColumns = kWarp;
constexpr int kTileRowsPerWarp = 2;
constexpr int kTileRows = kWarps * kTileRowsPerWarp;
constexpr int kBatchChunk = 128;
constexpr int kSmallOutputsPerWarp = 4;

static_assert(kSamples * kFusedMaxHidden <= kFusedThreads, "kernel 1 gives each (sample, hidden unit) a thread");
static_assert(kSamples * kFusedMaxClasses <= kFusedThreads, "kernel 1 gives each (sample, class) a thread");
static_assert(kBatchChunk % kWarps == 0 && kBatchChunk * kTileRows % kFusedThreads == 0,
              "kernel 2's chunk loads split evenly over the warps and threads");

__host__ __device__ constexpr int round_up4(int n) { return (n + 3) / 4 * 4; }

// Butterfly sums over the warp: every lane ends with the same bits (each step adds the
// same two values on both sides), in an order fixed by the lane numbers alone.
__device__ __forceinline__ float warp_sum(float v) {
  for (int offset = kWarp / 2; offset > 0; offset /= 2) v += __shfl_xor_sync(0xffffffffu, v, offset);
  return v;
}
__device__ __forceinline__ double warp_sum(double v) {
  for (int offset = kWarp / 2; offset > 0; offset /= 2) v += __shfl_xor_sync(0xffffffffu, v, offset);
  return v;
}
__device__ __forceinline__ unsigned long long warp_sum(unsigned long long v) {
  for (int offset = kWarp / 2; offset > 0; offset /= 2) v += __shfl_xor_sync(0xffffffffu, v, offset);
  return v;
}

// Kernel 1: forward, loss and the backward pass down to the hidden layer's output, for
// kSamples samples a block. kRows: hidden rows per warp (8 warps × kRows ≥ hidden).
// Dynamic shared memory: fused_step_grid's forward_shared_bytes.
template <int kRows>
__global__ void __launch_bounds__(kFusedThreads)
    fused_forward_backward_kernel(FusedStepShape shape, FusedStepBuffers buf, const float* __restrict__ images,
                                  const std::int32_t* __restrict__ labels, int batch, bool vector_loads) {
  extern __shared__ float4 fused_shared[];
  const int inputs = shape.inputs;
  const int hidden = shape.hidden;
  const int classes = shape.classes;
  const int stride = round_up4(inputs);                // a shared image row: 16-byte aligned
  float* xs = reinterpret_cast<float*>(fused_shared);  // [kSamples][stride] images
  float* hs = xs + kSamples * stride;                  // [kSamples][kFusedMaxHidden] hidden, post-ReLU
  float* zs = hs + kSamples * kFusedMaxHidden;         // [kSamples][kFusedMaxClasses] logits
  float* gs = zs + kSamples * kFusedMaxClasses;        // [kSamples][kFusedMaxClasses] dlogits

  const int tid = static_cast<int>(threadIdx.x);
  const int warp = tid / kWarp;
  const int lane = tid % kWarp;
  const long long first = static_cast<long long>(blockIdx.x) * kSamples;
  const int count = static_cast<int>(first + kSamples <= batch ? kSamples : batch - first);
  const float* x = images + static_cast<std::size_t>(first) * static_cast<std::size_t>(inputs);

  // The block's images; rows past the batch's end are zeros (computed, never written out).
  if (vector_loads) {
    const int per_row = inputs / 4;
    const auto* src = reinterpret_cast<const float4*>(x);
#pragma unroll 4
    for (int i = tid; i < kSamples * per_row; i += kFusedThreads) {
      const int s = i / per_row;
      const int q = i % per_row;
      reinterpret_cast<float4*>(xs + s * stride)[q] =
          s < count ? src[static_cast<std::size_t>(s) * per_row + q] : make_float4(0.0f, 0.0f, 0.0f, 0.0f);
    }
  } else {
    for (int i = tid; i < kSamples * stride; i += kFusedThreads) {
      const int s = i / stride;
      const int k = i % stride;
      xs[i] = s < count && k < inputs ? x[static_cast<std::size_t>(s) * inputs + k] : 0.0f;
    }
  }
  __syncthreads();

  // The hidden layer: warp w owns rows [w·kRows, (w+1)·kRows); its lanes stride the
  // inputs, each W1 element read once a block and used for all kSamples samples.
  const float* w1 = buf.parameters + buf.w1;
  const float* b1 = buf.parameters + buf.b1;
  const int row0 = warp * kRows;
  float acc[kRows][kSamples];
#pragma unroll
  for (int r = 0; r < kRows; ++r)
#pragma unroll
    for (int s = 0; s < kSamples; ++s) acc[r][s] = 0.0f;
  if (vector_loads) {
    const int per_row = inputs / 4;
#pragma unroll 2
    for (int q = lane; q < per_row; q += kWarp) {
      float4 xv[kSamples];
#pragma unroll
      for (int s = 0; s < kSamples; ++s) xv[s] = reinterpret_cast<const float4*>(xs + s * stride)[q];
#pragma unroll
      for (int r = 0; r < kRows; ++r) {
        if (row0 + r >= hidden) break;  // uniform across the warp
        const float4 w = __ldg(reinterpret_cast<const float4*>(w1 + static_cast<std::size_t>(row0 + r) * inputs) + q);
#pragma unroll
        for (int s = 0; s < kSamples; ++s) {
          acc[r][s] = fmaf(w.x, xv[s].x, acc[r][s]);
          acc[r][s] = fmaf(w.y, xv[s].y, acc[r][s]);
          acc[r][s] = fmaf(w.z, xv[s].z, acc[r][s]);
          acc[r][s] = fmaf(w.w, xv[s].w, acc[r][s]);
        }
      }
    }
  } else {
    for (int k = lane; k < inputs; k += kWarp) {
      float xv[kSamples];
#pragma unroll
      for (int s = 0; s < kSamples; ++s) xv[s] = xs[s * stride + k];
#pragma unroll
      for (int r = 0; r < kRows; ++r) {
        if (row0 + r >= hidden) break;
        const float w = __ldg(w1 + static_cast<std::size_t>(row0 + r) * inputs + k);
#pragma unroll
        for (int s = 0; s < kSamples; ++s) acc[r][s] = fmaf(w, xv[s], acc[r][s]);
      }
    }
  }
#pragma unroll
  for (int r = 0; r < kRows; ++r) {
    const int j = row0 + r;
    if (j >= hidden) break;  // uniform: the shuffles below see the whole warp
#pragma unroll
    for (int s = 0; s < kSamples; ++s) {
      const float z = warp_sum(acc[r][s]);
      if (lane == 0) hs[s * kFusedMaxHidden + j] = fmaxf(z + b1[j], 0.0f);
    }
  }
  __syncthreads();

  // The logits, a thread each; the hidden layer out (coalesced: the block's rows are consecutive).
  const float* w2 = buf.parameters + buf.w2;
  const float* b2 = buf.parameters + buf.b2;
  if (tid < count * classes) {
    const int s = tid / classes;
    const int c = tid % classes;
    float z = 0.0f;
    for (int j = 0; j < hidden; ++j) z = fmaf(w2[c * hidden + j], hs[s * kFusedMaxHidden + j], z);
    zs[s * kFusedMaxClasses + c] = z + b2[c];
  }
  float* hidden_out = buf.hidden + static_cast<std::size_t>(first) * hidden;
  for (int i = tid; i < count * hidden; i += kFusedThreads)
    hidden_out[i] = hs[(i / hidden) * kFusedMaxHidden + i % hidden];
  __syncthreads();

  // Softmax cross-entropy, a thread a sample, as softmax_cross_entropy_kernel: the first
  // maximum, a stable log-sum-exp, the label's p - 1 as -(the other classes' sum)/sum.
  if (tid < count) {
    const int s = tid;
    const float* z = zs + s * kFusedMaxClasses;
    float* g = gs + s * kFusedMaxClasses;
    float best = -INFINITY;
    int best_index = INT_MAX;
    for (int c = 0; c < classes; ++c) {
      if (z[c] > best) {
        best = z[c];
        best_index = c;
      }
    }
    const std::size_t row = static_cast<std::size_t>(first) + s;
    const int label = labels[row];
    const bool valid = label >= 0 && label < classes;
    float sum = 0.0f;
    float others = 0.0f;
    for (int c = 0; c < classes; ++c) {
      const float e = expf(z[c] - best);
      sum += e;
      if (c != label) others += e;
    }
    buf.row_loss[row] = valid ? logf(sum) - (z[label] - best) : __int_as_float(0x7fc00000);
    buf.row_correct[row] = valid && best_index == label ? 1 : 0;
    const float inverse_sum = 1.0f / sum;
    const float scale = 1.0f / static_cast<float>(batch);
    for (int c = 0; c < classes; ++c)
      g[c] = (c == label ? -others * inverse_sum : expf(z[c] - best) * inverse_sum) * scale;
  }
  __syncthreads();

  // The hidden layer's gradient, a thread per (sample, unit): W2ᵀ·dlogits where the unit
  // was on (post-ReLU > 0 exactly when the pre-activation was), zero elsewhere.
  if (tid < count * hidden) {
    const int s = tid / hidden;
    const int j = tid % hidden;
    float d = 0.0f;
    if (hs[s * kFusedMaxHidden + j] > 0.0f) {
      for (int c = 0; c < classes; ++c) d = fmaf(w2[c * hidden + j], gs[s * kFusedMaxClasses + c], d);
    }
    buf.dhidden[static_cast<std::size_t>(first) * hidden + tid] = d;
  }
  const std::size_t logit_base = static_cast<std::size_t>(first) * classes;
  for (int i = tid; i < count * classes; i += kFusedThreads) {
    const int at = (i / classes) * kFusedMaxClasses + i % classes;
    buf.logits[logit_base + i] = zs[at];
    buf.dlogits[logit_base + i] = gs[at];
  }
}

// Kernel 2: every gradient element summed over the whole batch by one owner, in sample
// order, then written and (with `update`) applied. Blocks [0, w1_blocks): a dW1 tile
// each; the rest: the small outputs, a warp each in turn.
__global__ void __launch_bounds__(kFusedThreads)
    fused_gradient_update_kernel(FusedStepShape shape, FusedStepBuffers buf, const float* __restrict__ images,
                                 int batch, int column_tiles, int w1_blocks, int small_blocks, bool update,
                                 float learning_rate, float momentum) {
  __shared__ float xs[kBatchChunk][kTileColumns];
  __shared__ float ds[kBatchChunk][kTileRows];
  const int tid = static_cast<int>(threadIdx.x);
  const int warp = tid / kWarp;
  const int lane = tid % kWarp;
  const int inputs = shape.inputs;
  const int hidden = shape.hidden;
  const int classes = shape.classes;
  const auto apply = [&](std::size_t index, float gradient) {
    buf.gradients[index] = gradient;
    if (!update) return;
    const SgdMomentumElement e =
        sgd_momentum_element(buf.parameters[index], buf.velocity[index], gradient, learning_rate, momentum);
    buf.velocity[index] = e.velocity;
    buf.parameters[index] = e.parameter;
  };

  const int block = static_cast<int>(blockIdx.x);
  if (block < w1_blocks) {  // uniform across the block: the barriers below are reached by all
    const int column = (block % column_tiles) * kTileColumns + lane;
    const int row_first = (block / column_tiles) * kTileRows;
    float acc[kTileRowsPerWarp] = {};
    for (int b0 = 0; b0 < batch; b0 += kBatchChunk) {
      const int n = min(kBatchChunk, batch - b0);
      // Every load of the chunk issued before any is stored (fixed trip counts, unrolled):
      // one round trip to L2 a chunk, not one a row. Rows past n read as zeros.
      constexpr int kImageLoads = kBatchChunk / kWarps;
      constexpr int kGradientLoads = kBatchChunk * kTileRows / kFusedThreads;
      float image[kImageLoads];
      float gradient[kGradientLoads];
#pragma unroll
      for (int i = 0; i < kImageLoads; ++i) {
        const int r = warp + i * kWarps;
        image[i] = r < n && column < inputs ? images[static_cast<std::size_t>(b0 + r) * inputs + column] : 0.0f;
      }
#pragma unroll
      for (int i = 0; i < kGradientLoads; ++i) {
        const int e = tid + i * kFusedThreads;
        const int r = e / kTileRows;
        const int j = row_first + e % kTileRows;
        gradient[i] = r < n && j < hidden ? buf.dhidden[static_cast<std::size_t>(b0 + r) * hidden + j] : 0.0f;
      }
#pragma unroll
      for (int i = 0; i < kImageLoads; ++i) xs[warp + i * kWarps][lane] = image[i];
#pragma unroll
      for (int i = 0; i < kGradientLoads; ++i) {
        const int e = tid + i * kFusedThreads;
        ds[e / kTileRows][e % kTileRows] = gradient[i];
      }
      __syncthreads();
      for (int r = 0; r < n; ++r) {
        const float xv = xs[r][lane];
#pragma unroll
        for (int q = 0; q < kTileRowsPerWarp; ++q) acc[q] = fmaf(ds[r][warp * kTileRowsPerWarp + q], xv, acc[q]);
      }
      __syncthreads();
    }
#pragma unroll
    for (int q = 0; q < kTileRowsPerWarp; ++q) {
      const int j = row_first + warp * kTileRowsPerWarp + q;
      if (j < hidden && column < inputs) apply(buf.w1 + static_cast<std::size_t>(j) * inputs + column, acc[q]);
    }
    return;
  }

  // The small outputs: [0, classes·hidden) dW2 (row-major, as W2), then db2, db1, and
  // last the loss sum and correct count. A warp's lanes stride the batch.
  const int weights2 = classes * hidden;
  const int outputs = weights2 + classes + hidden + 1;
  const int small_warps = small_blocks * kWarps;
  for (int o = (block - w1_blocks) * kWarps + warp; o < outputs; o += small_warps) {
    if (o == outputs - 1) {
      double loss = 0.0;
      unsigned long long correct = 0;
      for (int b = lane; b < batch; b += kWarp) {
        loss += static_cast<double>(buf.row_loss[b]);
        correct += static_cast<unsigned long long>(buf.row_correct[b]);
      }
      loss = warp_sum(loss);
      correct = warp_sum(correct);
      if (lane == 0) {
        buf.scalars->loss_sum = loss;
        buf.scalars->correct = correct;
      }
      continue;
    }
    float sum = 0.0f;
    std::size_t index = 0;
    if (o < weights2) {
      const int c = o / hidden;
      const int j = o % hidden;
      for (int b = lane; b < batch; b += kWarp) {
        const auto row = static_cast<std::size_t>(b);
        sum = fmaf(buf.dlogits[row * classes + c], buf.hidden[row * hidden + j], sum);
      }
      index = buf.w2 + static_cast<std::size_t>(o);
    } else if (o < weights2 + classes) {
      const int c = o - weights2;
      for (int b = lane; b < batch; b += kWarp) sum += buf.dlogits[static_cast<std::size_t>(b) * classes + c];
      index = buf.b2 + static_cast<std::size_t>(c);
    } else {
      const int j = o - weights2 - classes;
      for (int b = lane; b < batch; b += kWarp) sum += buf.dhidden[static_cast<std::size_t>(b) * hidden + j];
      index = buf.b1 + static_cast<std::size_t>(j);
    }
    sum = warp_sum(sum);
    if (lane == 0) apply(index, sum);
  }
}

__global__ void fused_empty_kernel() {}

int rows_per_warp(int hidden) {
  int rows = 1;
  while (rows * kWarps < hidden) rows *= 2;
  return rows;
}

bool aligned16(const void* p) { return reinterpret_cast<std::uintptr_t>(p) % 16 == 0; }

}  // namespace

FusedStepGrid fused_step_grid(const FusedStepShape& shape, int batch) {
  if (shape.inputs < 1 || shape.inputs > kFusedMaxInputs || shape.hidden < 1 || shape.hidden > kFusedMaxHidden ||
      shape.classes < 1 || shape.classes > kFusedMaxClasses) {
    throw std::invalid_argument("fused_step: shape " + std::to_string(shape.inputs) + "x" +
                                std::to_string(shape.hidden) + "x" + std::to_string(shape.classes) +
                                " is outside inputs 1.." + std::to_string(kFusedMaxInputs) + ", hidden 1.." +
                                std::to_string(kFusedMaxHidden) + ", classes 1.." + std::to_string(kFusedMaxClasses));
  }
  if (batch < 1) throw std::invalid_argument("fused_step: batch " + std::to_string(batch) + " is below 1");
  FusedStepGrid g;
  g.forward_blocks = (batch - 1) / kSamples + 1;
  g.forward_rows_per_warp = rows_per_warp(shape.hidden);
  g.forward_shared_bytes = sizeof(float) * static_cast<std::size_t>(kSamples) *
                           static_cast<std::size_t>(round_up4(shape.inputs) + kFusedMaxHidden + 2 * kFusedMaxClasses);
  g.column_tiles = (shape.inputs + kTileColumns - 1) / kTileColumns;
  g.row_groups = (shape.hidden + kTileRows - 1) / kTileRows;
  g.small_outputs = shape.classes * shape.hidden + shape.classes + shape.hidden + 1;
  const int small_warps = (g.small_outputs + kSmallOutputsPerWarp - 1) / kSmallOutputsPerWarp;
  g.small_blocks = (small_warps + kWarps - 1) / kWarps;
  return g;
}

namespace {

void check_buffers(const FusedStepBuffers& b, const void* images) {
  if (images == nullptr || b.parameters == nullptr || b.gradients == nullptr || b.velocity == nullptr ||
      b.hidden == nullptr || b.logits == nullptr || b.dlogits == nullptr || b.dhidden == nullptr ||
      b.row_loss == nullptr || b.row_correct == nullptr || b.scalars == nullptr) {
    throw std::invalid_argument("fused step: a null buffer");
  }
}

}  // namespace

void fused_forward_backward(const FusedStepShape& shape, const FusedStepBuffers& buffers, const float* images,
                            const std::int32_t* labels, int batch, cudaStream_t stream) {
  const FusedStepGrid g = fused_step_grid(shape, batch);
  check_buffers(buffers, images);
  if (labels == nullptr) throw std::invalid_argument("fused step: null labels");
  // 16-byte loads of the images and W1's rows where every row starts on 16 bytes.
  const bool vector_loads = shape.inputs % 4 == 0 && aligned16(images) && aligned16(buffers.parameters + buffers.w1);
  const dim3 grid(static_cast<unsigned>(g.forward_blocks));
  switch (g.forward_rows_per_warp) {
    case 1:
      fused_forward_backward_kernel<1><<<grid, kFusedThreads, g.forward_shared_bytes, stream>>>(
          shape, buffers, images, labels, batch, vector_loads);
      break;
    case 2:
      fused_forward_backward_kernel<2><<<grid, kFusedThreads, g.forward_shared_bytes, stream>>>(
          shape, buffers, images, labels, batch, vector_loads);
      break;
    case 4:
      fused_forward_backward_kernel<4><<<grid, kFusedThreads, g.forward_shared_bytes, stream>>>(
          shape, buffers, images, labels, batch, vector_loads);
      break;
    default:
      fused_forward_backward_kernel<8><<<grid, kFusedThreads, g.forward_shared_bytes, stream>>>(
          shape, buffers, images, labels, batch, vector_loads);
      break;
  }
  check_launch("fused_forward_backward_kernel");
}

void fused_gradient_update(const FusedStepShape& shape, const FusedStepBuffers& buffers, const float* images, int batch,
                           bool update, float learning_rate, float momentum, cudaStream_t stream) {
  const FusedStepGrid g = fused_step_grid(shape, batch);
  check_buffers(buffers, images);
  fused_gradient_update_kernel<<<static_cast<unsigned>(g.gradient_blocks()), kFusedThreads, 0, stream>>>(
      shape, buffers, images, batch, g.column_tiles, g.w1_blocks(), g.small_blocks, update, learning_rate, momentum);
  check_launch("fused_gradient_update_kernel");
}

void fused_step_empty(const FusedStepShape& shape, int batch, cudaStream_t stream) {
  const FusedStepGrid g = fused_step_grid(shape, batch);
  fused_empty_kernel<<<static_cast<unsigned>(g.forward_blocks), kFusedThreads, g.forward_shared_bytes, stream>>>();
  check_launch("fused_empty_kernel (forward's launch)");
  fused_empty_kernel<<<static_cast<unsigned>(g.gradient_blocks()), kFusedThreads, 0, stream>>>();
  check_launch("fused_empty_kernel (gradient's launch)");
}

}  // namespace hdbench::kernels
