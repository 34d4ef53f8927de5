// The fused training step of a small two-layer MLP (inputs × hidden × classes: Linear →
// ReLU → Linear → softmax cross-entropy, fp32, SGD with momentum) in two kernels, for
// lib/mlp/mlp_fused.cpp:
//
//   1. forward + loss + backward to the hidden layer. Each block takes
//      kFusedSamplesPerBlock samples: their images into shared memory, the hidden
//      layer (each warp a few rows of W1, its lanes across the inputs, a fixed
//      shuffle tree per sum), the logits, softmax cross-entropy (loss, correct, the
//      logits' gradient / batch), and the hidden layer's gradient (W2ᵀ·dlogits through
//      the ReLU mask). Writes per sample: hidden, logits, dlogits, dhidden, loss, correct.
//   2. weight gradients + update. Every gradient element is summed over the whole batch
//      by one owner, in sample order, so nothing is reduced across blocks and there is
//      no atomic: blocks [0, w1_blocks) own a tile of dW1 = dhiddenᵀ·images (32 input
//      columns × 16 hidden rows, the batch streamed through shared memory in chunks);
//      the blocks after them own the small outputs, one warp per output (dW2, db2, db1,
//      and the loss sum and correct count), its lanes striding the batch and meeting in
//      a fixed shuffle tree. Each owner writes the gradient and, when asked, applies
//      SGD with momentum to its element (mlp_update.cuh, the arithmetic of
//      sgd_momentum_update).
//
// fp32 throughout with fp32 accumulation (the loss sum in double); every sum has a fixed
// order, so a step is reproducible to the bit (eager or replayed from a graph). Both
// launches go on the caller's stream and are checked; nothing waits, so they capture
// into a CUDA graph as two kernel nodes.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>

#include "mlp_kernels.hpp"  // StepScalars

namespace hdbench::kernels {

// What the kernels are sized for: shared memory holds kFusedSamplesPerBlock images
// (the inputs), the hidden layer's rows fill 8 warps × at most 8 accumulator rows,
// and the per-sample softmax runs in one thread.
inline constexpr int kFusedMaxInputs = 2048;
inline constexpr int kFusedMaxHidden = 64;
inline constexpr int kFusedMaxClasses = 16;
inline constexpr int kFusedSamplesPerBlock = 4;
inline constexpr int kFusedThreads = 256;

struct FusedStepShape {
  int inputs = 0;
  int hidden = 0;
  int classes = 0;
};

// The buffers the two kernels read and write, all on the device. Parameters, gradients
// and velocity are the flat layout of mlp_model.hpp, the offsets its layer blocks.
struct FusedStepBuffers {
  float* parameters = nullptr;
  float* gradients = nullptr;
  float* velocity = nullptr;
  std::size_t w1 = 0, b1 = 0, w2 = 0, b2 = 0;
  float* hidden = nullptr;   // [batch × hidden], post-ReLU
  float* logits = nullptr;   // [batch × classes]
  float* dlogits = nullptr;  // [batch × classes]: (softmax - onehot) / batch
  float* dhidden = nullptr;  // [batch × hidden]: the gradient at the hidden layer's output, mask applied
  float* row_loss = nullptr;
  int* row_correct = nullptr;
  StepScalars* scalars = nullptr;  // written, not accumulated
};

// The launch configuration of both kernels for a shape and batch (host arithmetic).
struct FusedStepGrid {
  int forward_blocks = 0;         // kernel 1: ceil(batch / kFusedSamplesPerBlock)
  int forward_rows_per_warp = 0;  // hidden rows per warp in kernel 1: 1, 2, 4 or 8
  std::size_t forward_shared_bytes = 0;
  int column_tiles = 0;   // kernel 2: ceil(inputs / 32) tiles of dW1 columns
  int row_groups = 0;     // × ceil(hidden / 16) groups of dW1 rows
  int small_outputs = 0;  // classes·hidden + classes + hidden + 1 (the loss)
  int small_blocks = 0;   // blocks of 8 warps, at most 4 small outputs a warp
  int w1_blocks() const noexcept { return column_tiles * row_groups; }
  int gradient_blocks() const noexcept { return w1_blocks() + small_blocks; }
};

// Throws std::invalid_argument when the shape is outside the kernels' limits or the
// batch is below 1.
FusedStepGrid fused_step_grid(const FusedStepShape& shape, int batch);

// Enqueue kernel 1 and kernel 2 on `stream`, in that order (kernel 2 reads what kernel
// 1 wrote). With `update`, kernel 2 applies SGD with momentum (v = momentum·v + g;
// p -= lr·v) to each element as it writes its gradient; without, it only writes the
// gradients (sgd_momentum_update over the flat array then gives the same parameters,
// bit for bit). Labels outside [0, classes) give a NaN loss, as softmax_cross_entropy.
void fused_forward_backward(const FusedStepShape& shape, const FusedStepBuffers& buffers, const float* images,
                            const std::int32_t* labels, int batch, cudaStream_t stream);
void fused_gradient_update(const FusedStepShape& shape, const FusedStepBuffers& buffers, const float* images, int batch,
                           bool update, float learning_rate, float momentum, cudaStream_t stream);

// The same two launches (grids, blocks, shared memory) of kernels that do nothing: what
// launching the fused step costs before it does any work, its launch floor.
void fused_step_empty(const FusedStepShape& shape, int batch, cudaStream_t stream);

}  // namespace hdbench::kernels
