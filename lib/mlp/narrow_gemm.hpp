// The two big GEMMs of a layer with few outputs (at most 32, e.g. 784x32x10's first
// layer), in kernels of our own for AVX-512 and for AVX2 with FMA. OpenBLAS packs both
// operands of every GEMM into its own layout first; with 32 outputs each element of the
// batch (X, 1024x784 floats at batch 1024) is used by only two output vectors, so the
// packing is a third of the GEMM (sgemm_oncopy + sgemm_itcopy: 32% of a 784x32x10 step's
// time on one core here, perf) and OpenBLAS reached ~115 GFLOP/s where MKL (PyTorch's)
// reached ~175. These read the batch where it lies and pack only the layer's small weight
// matrix, kept up to date by the optimizer (CpuMlp): ~175 GFLOP/s forward and ~145 for
// the weight gradient at batch 1024 on one core of the 2-vCPU Sapphire Rapids VM, against
// OpenBLAS's ~115 for both. On one core of a 2-vCPU AMD EPYC (Zen 3, AVX2, an FMA roof of
// ~100 GFLOP/s), the AVX2 kernels against OpenBLAS's Zen kernels, alternated in one
// process on a batch fresh from memory each call (as in a step): 1.21-1.23x faster
// forward, 1.11-1.13x for the weight gradient (on a warm batch 1.15-1.47x forward, level
// for the weight gradient); the 784x32x10 step at batch 1024 on both cores ran 11-13%
// faster.
//
// Each call is single-threaded; the CPU step splits a GEMM over its team by rows (the
// forward) or by columns (the weight gradient) and calls these on each block. On a CPU
// with neither instruction set (narrow_gemm_isa() none) the step keeps OpenBLAS.
#pragma once

#include <cstddef>

namespace hdbench {

// The most outputs a narrow layer has: two 16-float vectors.
inline constexpr int kNarrowMaxOutputs = 32;
// Floats a packed weight row holds (kNarrowMaxOutputs, zero-padded).
inline constexpr int kNarrowPackedWidth = 32;
// The fewest inputs a layer takes them for: below, its GEMMs are small enough that
// OpenBLAS's packing costs little (and the team runs them on one thread).
inline constexpr int kNarrowMinInputs = 64;

// The kernels' instruction sets, narrowest first.
enum class NarrowGemmIsa { none, avx2, avx512 };
const char* to_string(NarrowGemmIsa isa) noexcept;

// The widest this CPU runs (AVX-512F, else AVX2 with FMA, else none), checked once: what
// the step and the calls below use unless told otherwise.
NarrowGemmIsa narrow_gemm_isa() noexcept;
inline bool narrow_gemm_available() noexcept { return narrow_gemm_isa() != NarrowGemmIsa::none; }
// Whether this CPU runs `isa`'s kernels (an AVX-512 CPU runs the AVX2 ones too).
bool narrow_gemm_supports(NarrowGemmIsa isa) noexcept;

// Packs columns [col_begin, col_end) of W [outputs × ldw] (row-major, outputs <= 32) as
// rows of `packed` [k × kNarrowPackedWidth]: packed[j][i] = W[i][j], zero for i >= outputs.
void pack_narrow_weights(const float* w, int outputs, int ldw, int col_begin, int col_end, float* packed);

// C[m × outputs] (ldc) = A[m × k] (lda) · Wᵀ, W given as pack_narrow_weights' `packed`
// of all k columns. outputs <= 32; `isa` one this CPU supports (std::invalid_argument
// otherwise, as for more outputs).
void narrow_forward(int m, int outputs, int k, const float* a, int lda, const float* packed, float* c, int ldc,
                    NarrowGemmIsa isa = narrow_gemm_isa());

// C[outputs × n] (ldc) = Gᵀ · X: G [k × outputs] (ldg), X [k × n] (ldx); outputs <= 32.
// The weight gradient of a narrow layer: G its output gradient, X its input.
void narrow_weight_gradient(int outputs, int n, int k, const float* g, int ldg, const float* x, int ldx, float* c,
                            int ldc, NarrowGemmIsa isa = narrow_gemm_isa());

}  // namespace hdbench
