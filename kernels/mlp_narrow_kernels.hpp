// The input gradient of a layer with few outputs (the output layer: 10 classes), with
// the ReLU gradient of the layer below applied, as one kernel of hdbench's own in place
// of a cuBLASLt GEMM and a second pass. With K = 10 such a GEMM does 20 FLOP per element
// it writes, so it is bound by memory: cuBLASLt's plain GEMM writes dX, then the ReLU
// gradient reads it back with the activation and writes it again (on the H100, 110 µs
// in bf16 and 208 µs in tf32 for 4096 × 8192, where writing dX and reading the
// activation once takes ~40 and ~80 µs at its ~3.35 TB/s). The step's plan times it
// against the GEMM's ways and keeps the fastest (lib/mlp/mlp_gpu_plan.cpp).
#pragma once

#include <cuda_bf16.h>
#include <cuda_runtime_api.h>

namespace hdbench::kernels {

// The most outputs (K) the kernel takes: each thread keeps K × 4 weights in registers.
inline constexpr int kNarrowInputGradientMaxOutputs = 16;

// Whether narrow_input_gradient takes this shape and these pointers: 1 ≤ outputs ≤ 16,
// inputs a multiple of 4, `dx` and `activation` aligned to 16 bytes (each thread moves
// four elements of a row in one access).
bool narrow_input_gradient_supported(int outputs, int inputs, const void* dx, const void* activation) noexcept;

// dx[b][i] = activation[b][i] > 0 ? Σ_{k < outputs} dy[b·ldy + k] · w[k·inputs + i] : 0,
// for b < rows and i < inputs: w is the layer's row-major weight [outputs × inputs], dy
// the gradient of its output (ld ldy ≥ outputs), activation and dx [rows × inputs] (the
// layer below's output and its gradient). Sums in fp32 in k's order; bf16 results are
// rounded once. Throws std::invalid_argument where narrow_input_gradient_supported is false.
void narrow_input_gradient(const float* w, const float* dy, int ldy, const float* activation, float* dx, int rows,
                           int outputs, int inputs, cudaStream_t stream);
void narrow_input_gradient(const __nv_bfloat16* w, const __nv_bfloat16* dy, int ldy, const __nv_bfloat16* activation,
                           __nv_bfloat16* dx, int rows, int outputs, int inputs, cudaStream_t stream);

}  // namespace hdbench::kernels
