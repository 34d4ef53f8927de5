// The cuBLASLt GEMMs of a GpuMlp step and which epilogue each one fuses.
//
// Row-major activations [batch × width] are column-major [width × batch] matrices
// with ld = width, and a row-major weight [out × in] is a column-major W_cm [in × out]
// with ld = in, so per layer (B = batch):
//   forward         Yᵀ (out×B)  = W_cmᵀ · Xᵀ         RELU_AUX_BIAS (hidden) or BIAS (last)
//   weight gradient dW_cm (in×out) = Xᵀ · (dYᵀ)ᵀ     BGRADB: db = Σ_batch dY, this layer's bias gradient
//   input gradient  dXᵀ (in×B)  = W_cm · dYᵀ         DRELU with the layer below's forward bit-mask
// Every layer's bias gradient comes from its own weight-gradient GEMM (BGRADB), whose
// D is fp32 in every dtype, so the bias gradient lands in the fp32 gradient buffer
// as it is. The input-gradient GEMM only applies the ReLU gradient (DRELU).
//
// When cuBLASLt has no algorithm for a fused epilogue (the heuristic finds none, or
// the trial run is refused), that GEMM runs with the default epilogue and a fallback
// kernel does the rest: bias (+ ReLU), bias gradient, or ReLU gradient from the
// forward output (> 0). fused_epilogues() then reports false.
#include <cuda_bf16.h>

#include "mlp/mlp_gpu_impl.hpp"

namespace hdbench {

using mlp_gpu_detail::LayerPlan;
using mlp_gpu_detail::StepPlan;

const StepPlan& GpuMlp::Impl::plan_for(std::size_t batch, const float* images) {
  // bf16 runs read their own cast copy of the images, so only fp32/tf32 plans depend
  // on how the caller's batch is aligned.
  const void* input = bf16() ? static_cast<const void*>(images_bf16()) : static_cast<const void*>(images);
  const auto key = std::make_pair(batch, lt::alignment_of(input));
  auto found = plans.find(key);
  if (found == plans.end()) found = plans.emplace(key, build_plan(batch, input)).first;
  return found->second;
}

StepPlan GpuMlp::Impl::build_plan(std::size_t batch_size, const void* input) {
  const int batch = static_cast<int>(batch_size);
  const std::size_t layers = shape.layers();
  const cudaDataType_t op_type = bf16() ? CUDA_R_16BF : CUDA_R_32F;
  const cublasComputeType_t compute = dtype == MlpDtype::tf32 ? CUBLAS_COMPUTE_32F_FAST_TF32 : CUBLAS_COMPUTE_32F;
  void* workspace = at<char>(arena_layout.workspace);

  const auto plan_fused = [&](const lt::GemmSpec& spec) {
    return lt::Gemm::plan(handle.get(), spec, workspace, mlp_gpu_detail::kWorkspaceBytes, stream);
  };
  // The fallback: the same product with the default epilogue, which must exist.
  const auto plan_plain = [&](lt::GemmSpec spec) {
    spec.epilogue = CUBLASLT_EPILOGUE_DEFAULT;
    spec.bias = nullptr;
    spec.aux = nullptr;
    spec.aux_ld = 0;
    fused = false;
    return lt::Gemm::plan_or_throw(handle.get(), spec, workspace, mlp_gpu_detail::kWorkspaceBytes, stream);
  };
  const auto layer_input = [&](std::size_t l) { return l == 0 ? input : static_cast<const void*>(output(l - 1)); };

  StepPlan plan;
  plan.layers.resize(layers);
  for (std::size_t l = 0; l < layers; ++l) {
    LayerPlan& p = plan.layers[l];
    const int in = shape.fan_in(l);
    const int out = shape.fan_out(l);
    const bool hidden = l + 1 < layers;

    const lt::GemmSpec spec{.transpose_a = true, .m = out, .n = batch, .k = in, .lda = in, .ldb = in, .ldd = out,
                            .a_type = op_type, .b_type = op_type, .d_type = hidden ? op_type : CUDA_R_32F,
                            .compute = compute, .a = weight_operand(l), .b = layer_input(l), .d = output(l)};

    lt::GemmSpec fused_spec = spec;
    fused_spec.bias = parameters() + layout.layers[l].bias;
    fused_spec.bias_type = CUDA_R_32F;
    if (hidden) {
      fused_spec.epilogue = CUBLASLT_EPILOGUE_RELU_AUX_BIAS;
      fused_spec.aux = at<char>(arena_layout.masks[l]);
      fused_spec.aux_ld = arena_layout.mask_ld[l];
    } else {
      fused_spec.epilogue = CUBLASLT_EPILOGUE_BIAS;
    }
    p.forward = plan_fused(fused_spec);
    if (!p.forward && hidden && bf16()) {
      // A bf16 D may want its bias in bf16 (cuBLASLt's default): the copy the
      // optimizer keeps next to the bf16 weights.
      fused_spec.bias = parameters_bf16() + layout.layers[l].bias;
      fused_spec.bias_type = CUDA_R_16BF;
      p.forward = plan_fused(fused_spec);
    }
    p.forward_fused = p.forward.has_value();
    p.writes_mask = hidden && p.forward_fused;
    if (!p.forward) p.forward = plan_plain(spec);
  }

  for (std::size_t l = layers; l-- > 0;) {
    LayerPlan& p = plan.layers[l];
    const int in = shape.fan_in(l);
    const int out = shape.fan_out(l);

    const lt::GemmSpec weight{.transpose_b = true, .m = in, .n = out, .k = batch, .lda = in, .ldb = out, .ldd = in,
                              .a_type = op_type, .b_type = op_type, .d_type = CUDA_R_32F, .compute = compute,
                              .a = layer_input(l), .b = dy(l), .d = gradients() + layout.layers[l].weight};
    lt::GemmSpec fused_weight = weight;
    fused_weight.epilogue = CUBLASLT_EPILOGUE_BGRADB;
    fused_weight.bias = gradients() + layout.layers[l].bias;
    fused_weight.bias_type = CUDA_R_32F;
    p.weight_gradient = plan_fused(fused_weight);
    p.weight_gradient_fused = p.weight_gradient.has_value();
    if (!p.weight_gradient) p.weight_gradient = plan_plain(weight);

    if (l == 0) continue;
    const lt::GemmSpec input_grad{.m = in, .n = batch, .k = out, .lda = in, .ldb = out, .ldd = in, .a_type = op_type,
                                  .b_type = op_type, .d_type = op_type, .compute = compute, .a = weight_operand(l),
                                  .b = dy(l), .d = dy(l - 1)};
    if (plan.layers[l - 1].writes_mask) {
      lt::GemmSpec fused_input = input_grad;
      fused_input.epilogue = CUBLASLT_EPILOGUE_DRELU;
      fused_input.aux = at<char>(arena_layout.masks[l - 1]);
      fused_input.aux_ld = arena_layout.mask_ld[l - 1];
      p.input_gradient = plan_fused(fused_input);
    }
    p.input_gradient_fused = p.input_gradient.has_value();
    if (!p.input_gradient) p.input_gradient = plan_plain(input_grad);
  }
  return plan;
}

}  // namespace hdbench
