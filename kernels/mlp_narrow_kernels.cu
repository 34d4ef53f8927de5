#include <algorithm>
#include <cstdint>
#include <stdexcept>
#include <string>

#include "launch_check.hpp"
#include "mlp_narrow_kernels.hpp"

namespace hdbench::kernels {
namespace {

constexpr int kThreads = 256;
constexpr int kColumnsPerThread = 4;
// Rows a block walks: enough blocks (2,048 at 4096 × 8192) to fill an H200 several times,
// few enough that each thread's weights, loaded once, serve many rows.
constexpr int kRowsPerBlock = 16;

// Four consecutive elements of a row, as one 16-byte (fp32) or 8-byte (bf16) access.
struct Four {
  float v[kColumnsPerThread];
};
__device__ __forceinline__ Four load_four(const float* p) {
  const float4 q = *reinterpret_cast<const float4*>(p);
  return {{q.x, q.y, q.z, q.w}};
}
__device__ __forceinline__ Four load_four(const __nv_bfloat16* p) {
  const uint2 q = *reinterpret_cast<const uint2*>(p);
  const auto low = *reinterpret_cast<const __nv_bfloat162*>(&q.x);
  const auto high = *reinterpret_cast<const __nv_bfloat162*>(&q.y);
  return {{__low2float(low), __high2float(low), __low2float(high), __high2float(high)}};
}
__device__ __forceinline__ void store_four(float* p, const Four& f) {
  *reinterpret_cast<float4*>(p) = make_float4(f.v[0], f.v[1], f.v[2], f.v[3]);
}
__device__ __forceinline__ void store_four(__nv_bfloat16* p, const Four& f) {
  const __nv_bfloat162 low = __floats2bfloat162_rn(f.v[0], f.v[1]);
  const __nv_bfloat162 high = __floats2bfloat162_rn(f.v[2], f.v[3]);
  uint2 q;
  q.x = *reinterpret_cast<const unsigned*>(&low);
  q.y = *reinterpret_cast<const unsigned*>(&high);
  *reinterpret_cast<uint2*>(p) = q;
}
__device__ __forceinline__ float widen(float x) { return x; }
__device__ __forceinline__ float widen(__nv_bfloat16 x) { return __bfloat162float(x); }

// Thread t of block (x, y) owns columns 4·(x·256 + t) … +3 and rows y·16 … +15 (then
// those a grid's height further on). It loads its columns of the weights once, for all
// its rows. The warp's threads share a row at each step, so their dy loads are one
// broadcast.
template <typename T>
__global__ void __launch_bounds__(kThreads)
    narrow_input_gradient_kernel(const T* __restrict__ w, const T* __restrict__ dy, int ldy,
                                 const T* __restrict__ activation, T* __restrict__ dx, int rows, int outputs,
                                 int inputs) {
  const int column = kColumnsPerThread * (blockIdx.x * kThreads + threadIdx.x);
  if (column >= inputs) return;
  float weights[kNarrowInputGradientMaxOutputs][kColumnsPerThread];
#pragma unroll
  for (int k = 0; k < kNarrowInputGradientMaxOutputs; ++k)
#pragma unroll
    for (int c = 0; c < kColumnsPerThread; ++c)
      weights[k][c] = k < outputs ? widen(w[static_cast<std::size_t>(k) * inputs + column + c]) : 0.0f;

  // Row blocks beyond the grid's 65,535 (a batch over a million) are taken in strides.
  for (int first = blockIdx.y * kRowsPerBlock; first < rows; first += gridDim.y * kRowsPerBlock) {
    const int last = min(rows, first + kRowsPerBlock);
#pragma unroll 4
    for (int row = first; row < last; ++row) {
      const std::size_t at = static_cast<std::size_t>(row) * inputs + column;
      const Four a = load_four(activation + at);
      const T* g = dy + static_cast<std::size_t>(row) * ldy;
      Four sum{{0.0f, 0.0f, 0.0f, 0.0f}};
#pragma unroll
      for (int k = 0; k < kNarrowInputGradientMaxOutputs; ++k) {
        if (k < outputs) {
          const float gk = widen(g[k]);
#pragma unroll
          for (int c = 0; c < kColumnsPerThread; ++c) sum.v[c] = fmaf(gk, weights[k][c], sum.v[c]);
        }
      }
#pragma unroll
      for (int c = 0; c < kColumnsPerThread; ++c)
        if (!(a.v[c] > 0.0f)) sum.v[c] = 0.0f;
      store_four(dx + at, sum);
    }
  }
}

template <typename T>
void launch(const T* w, const T* dy, int ldy, const T* activation, T* dx, int rows, int outputs, int inputs,
            cudaStream_t stream) {
  if (!narrow_input_gradient_supported(outputs, inputs, dx, activation) || ldy < outputs || rows < 0) {
    throw std::invalid_argument("narrow_input_gradient: unsupported shape (" + std::to_string(outputs) + " outputs, " +
                                std::to_string(inputs) + " inputs, ld " + std::to_string(ldy) +
                                ") or unaligned pointers; check narrow_input_gradient_supported() first");
  }
  if (rows == 0) return;
  const int thread_columns = inputs / kColumnsPerThread;
  constexpr int kMaxGridY = 65535;
  const dim3 grid((thread_columns + kThreads - 1) / kThreads,
                  std::min((rows + kRowsPerBlock - 1) / kRowsPerBlock, kMaxGridY));
  narrow_input_gradient_kernel<T><<<grid, kThreads, 0, stream>>>(w, dy, ldy, activation, dx, rows, outputs, inputs);
  check_launch("narrow_input_gradient_kernel");
}

}  // namespace

bool narrow_input_gradient_supported(int outputs, int inputs, const void* dx, const void* activation) noexcept {
  if (outputs < 1 || outputs > kNarrowInputGradientMaxOutputs || inputs <= 0 || inputs % kColumnsPerThread != 0)
    return false;
  // Rows of a multiple of 4 elements keep every thread's four aligned once the base is
  // aligned to four elements of the wider type (the check is for fp32's 16 bytes).
  const auto aligned = [](const void* p, std::uintptr_t bytes) {
    return reinterpret_cast<std::uintptr_t>(p) % bytes == 0;
  };
  return aligned(dx, 16) && aligned(activation, 16);
}

void narrow_input_gradient(const float* w, const float* dy, int ldy, const float* activation, float* dx, int rows,
                           int outputs, int inputs, cudaStream_t stream) {
  launch(w, dy, ldy, activation, dx, rows, outputs, inputs, stream);
}
void narrow_input_gradient(const __nv_bfloat16* w, const __nv_bfloat16* dy, int ldy, const __nv_bfloat16* activation,
                           __nv_bfloat16* dx, int rows, int outputs, int inputs, cudaStream_t stream) {
  launch(w, dy, ldy, activation, dx, rows, outputs, inputs, stream);
}

}  // namespace hdbench::kernels
