// The optimizer's arithmetic per element, shared by the optimizer kernel over the flat
// parameter array (mlp_kernels.cu) and the fused step's gradient kernel
// (mlp_fused_kernels.cu): one inline expression, so both compile to the same
// instructions (the same FMA contractions) and a fused update equals the separate
// one bit for bit.
#pragma once

namespace hdbench::kernels {

struct SgdMomentumElement {
  float parameter;
  float velocity;
};

// torch.optim.SGD with heavy-ball momentum: v = momentum·v + g; p -= lr·v.
__device__ __forceinline__ SgdMomentumElement sgd_momentum_element(float parameter, float velocity, float gradient,
                                                                   float learning_rate, float momentum) {
  const float v = momentum * velocity + gradient;
  return {parameter - learning_rate * v, v};
}

}  // namespace hdbench::kernels
