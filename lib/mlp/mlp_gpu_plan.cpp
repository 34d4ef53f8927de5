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
// A fused epilogue is not always the fast way: on the H100, DRELU runs as the GEMM
// plus a separate cuBLASLt kernel (566 us against 347 us plain at 4096×8192 bf16), and
// BGRADB on a 10-wide bf16 dY has only magma_sgemmEx (557 us against 44 us plain). So
// each GEMM is planned both ways, fused and plain (default epilogue, then hdbench's
// fallback kernel: bias (+ ReLU), bias gradient, or ReLU gradient from the forward
// output), each way timed with CUDA events (fallback included), and the faster kept
// (choose_epilogue). The output layer is planned twice more, with its logits and
// their gradient stored at ld = classes and at ld = padded_width(classes), and the
// layout whose three GEMMs took less in all is kept (choose_padding). The output layer's
// input gradient has a third candidate, hdbench's kernel in place of the GEMM (with the
// ReLU gradient in the same pass: kernels/mlp_narrow_kernels.hpp), timed the same way
// (choose_with_own_kernel). A fused epilogue cuBLASLt does not offer is simply not a
// candidate. In tf32 each weight gradient is planned a second way, its input first
// transposed into a batch-contiguous copy (kernels::transpose) so the GEMM reads A along K:
// with both operands contiguous along M or N, tf32 GEMMs ran at 0.63-0.65 of the square's
// best on an H200 and the step's weight gradients so (bf16 does not care). That way is
// kept when it took less, its transpose included (choose_transposed_input). PlanPolicy
// forces either side for tests. The choices and timings are in the plan's PlanChoices.
#include <cuda_bf16.h>

#include <algorithm>
#include <array>
#include <functional>
#include <initializer_list>
#include <optional>
#include <string>
#include <utility>

#include "core/cuda.hpp"
#include "mlp/mlp_gpu_impl.hpp"
#include "mlp_narrow_kernels.hpp"

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

template <typename Work>
double GpuMlp::Impl::time_microseconds(Work&& work, int repeats) {
  repeats = std::max(repeats, 1);
  work();  // warm-up: first-launch costs stay out of the figure
  const Event start;
  const Event stop;
  start.record(stream);
  for (int i = 0; i < repeats; ++i) work();
  stop.record(stream);
  return 1e3 * static_cast<double>(elapsed_ms(start, stop)) / repeats;
}

namespace {

// One GEMM's candidates: the fused plan (when cuBLASLt has one and the policy allows)
// and the plain plan, with their timings.
struct Planned {
  std::optional<lt::Gemm> gemm;  // empty when hdbench's own kernel replaces the GEMM
  bool fused = false;
  bool own_kernel = false;
  bool exists = true;  // false: no candidate had an algorithm (only where none had to)
  GemmChoice choice;
  std::optional<double> timed_microseconds;  // the kept way's time, nullopt where it was not timed
};

lt::GemmSpec plain_of(lt::GemmSpec spec) {
  spec.epilogue = CUBLASLT_EPILOGUE_DEFAULT;
  spec.bias = nullptr;
  spec.aux = nullptr;
  spec.aux_ld = 0;
  return spec;
}

}  // namespace

StepPlan GpuMlp::Impl::build_plan(std::size_t batch_size, const void* input) {
  const int batch = static_cast<int>(batch_size);
  const std::size_t layers = shape.layers();
  const std::size_t last = layers - 1;
  const cudaDataType_t op_type = bf16() ? CUDA_R_16BF : CUDA_R_32F;
  const cublasComputeType_t compute = dtype == MlpDtype::tf32 ? CUBLAS_COMPUTE_32F_FAST_TF32 : CUBLAS_COMPUTE_32F;
  void* workspace = at<char>(arena_layout.workspace);
  const bool measure = policy.epilogues == EpiloguePolicy::measure;
  // Candidates are timed where either the epilogues or the logits' layout are measured.
  const bool timing = measure || policy.padding == PaddingPolicy::measure;
  // Each GEMM keeps the fastest of the heuristic's algorithms (cublaslt.hpp, Tuning), unless
  // the policy keeps its first.
  const lt::Tuning tuning{.candidates = policy.time_algorithms ? lt::kTimeCandidates.candidates : 1,
                          .repeats = policy.timing_repeats};

  const auto plan_gemm = [&](const lt::GemmSpec& spec) {
    return lt::Gemm::plan(handle.get(), spec, workspace, mlp_gpu_detail::kWorkspaceBytes, stream, tuning);
  };
  const auto plan_plain = [&](const lt::GemmSpec& spec) {
    return lt::Gemm::plan_or_throw(handle.get(), plain_of(spec), workspace, mlp_gpu_detail::kWorkspaceBytes, stream,
                                   tuning);
  };
  // `fused_specs`: the fused variants to try in turn (the first cuBLASLt plans is the
  // candidate); `fallback` does the plain GEMM's missing epilogue; `own_kernel`, where
  // given, does the GEMM and its epilogue in hdbench's kernel instead; `prologue`, where
  // given, runs before either GEMM (the transpose of a transposed input) and is timed with
  // it. Without `plain_must_exist` a spec no algorithm takes leaves `exists` false.
  const auto choose = [&](std::size_t layer, const char* name, std::initializer_list<lt::GemmSpec> fused_specs,
                          const lt::GemmSpec& plain_spec, auto fallback, const std::function<void()>& own_kernel = {},
                          const std::function<void()>& prologue = {}, bool plain_must_exist = true) {
    Planned planned;
    planned.choice.layer = layer;
    planned.choice.gemm = name;
    std::optional<lt::Gemm> fused;
    if (policy.epilogues != EpiloguePolicy::unfused) {
      for (const lt::GemmSpec& spec : fused_specs) {
        fused = plan_gemm(spec);
        if (fused) break;
      }
    }
    std::optional<lt::Gemm> plain;
    if (policy.epilogues != EpiloguePolicy::fused || !fused)
      plain = plain_must_exist ? std::optional<lt::Gemm>(plan_plain(plain_spec)) : plan_gemm(plain_of(plain_spec));
    const bool own = own_kernel && policy.own_kernels != OwnKernelPolicy::never;
    if (!fused && !plain && !own) {
      planned.exists = false;
      return planned;
    }
    const auto before = [&] {
      if (prologue) prologue();
    };
    std::array<EpilogueCandidate, 3> timed{
        EpilogueCandidate{.fused = true, .microseconds = std::nullopt, .available = fused.has_value()},
        EpilogueCandidate{.fused = false, .microseconds = std::nullopt, .available = plain.has_value()},
        EpilogueCandidate{.fused = false, .microseconds = std::nullopt, .available = own}};
    if (fused && timing) {
      timed[0].microseconds = time_microseconds(
          [&] {
            before();
            fused->run(stream);
          },
          policy.timing_repeats);
    }
    if (plain && timing) {
      timed[1].microseconds = time_microseconds(
          [&] {
            before();
            plain->run(stream);
            fallback();
          },
          policy.timing_repeats);
    }
    if (own && timing) timed[2].microseconds = time_microseconds(own_kernel, policy.timing_repeats);
    // Plain always exists unless fused does.
    const std::size_t pick = choose_with_own_kernel(timed, policy.epilogues, policy.own_kernels).value();
    planned.fused = pick == 0;
    planned.own_kernel = pick == 2;
    if (pick < 2) planned.gemm = std::move(planned.fused ? fused : plain);
    planned.choice.fused = planned.fused;
    planned.choice.own_kernel = planned.own_kernel;
    planned.choice.fused_microseconds = timed[0].microseconds;
    planned.choice.plain_microseconds = timed[1].microseconds;
    planned.choice.kernel_microseconds = timed[2].microseconds;
    planned.timed_microseconds = timed[pick].microseconds;
    if (!planned.gemm) return planned;
    const lt::AlgorithmChoice& algorithm = planned.gemm->algorithm();
    planned.choice.algorithm_retuned = algorithm.retuned();
    planned.choice.algorithm_rank = algorithm.kept;
    planned.choice.algorithms_timed = static_cast<int>(algorithm.timed_microseconds.size());
    planned.choice.heuristic_first_microseconds = algorithm.first_microseconds();
    planned.choice.kept_algorithm_microseconds = algorithm.kept_microseconds();
    return planned;
  };
  const auto layer_input = [&](std::size_t l) { return l == 0 ? input : static_cast<const void*>(output(l - 1)); };

  // Layer l's GEMMs with its output stored at leading dimension `ld` (only the output
  // layer's varies). Backward GEMMs of layer l need layer l-1's forward plan (mask).
  const auto plan_forward = [&](StepPlan& plan, std::size_t l, int ld) {
    LayerPlan& p = plan.layers[l];
    const int in = shape.fan_in(l);
    const int out = shape.fan_out(l);
    const bool hidden = l < last;
    const lt::GemmSpec spec{.transpose_a = true,
                            .m = out,
                            .n = batch,
                            .k = in,
                            .lda = in,
                            .ldb = in,
                            .ldd = ld,
                            .a_type = op_type,
                            .b_type = op_type,
                            .d_type = hidden ? op_type : CUDA_R_32F,
                            .compute = compute,
                            .a = weight_operand(l),
                            .b = layer_input(l),
                            .d = output(l)};
    lt::GemmSpec fused = spec;
    fused.bias = parameters() + layout.layers[l].bias;
    fused.bias_type = CUDA_R_32F;
    fused.epilogue = hidden ? CUBLASLT_EPILOGUE_RELU_AUX_BIAS : CUBLASLT_EPILOGUE_BIAS;
    if (hidden) {
      fused.aux = at<char>(arena_layout.masks[l]);
      fused.aux_ld = arena_layout.mask_ld[l];
    }
    // A bf16 D may want its bias in bf16 (cuBLASLt's default): the copy the optimizer
    // keeps next to the bf16 weights.
    lt::GemmSpec fused_bf16_bias = fused;
    fused_bf16_bias.bias = parameters_bf16() + layout.layers[l].bias;
    fused_bf16_bias.bias_type = CUDA_R_16BF;
    const bool second = hidden && bf16();
    Planned planned =
        second ? choose(l, "forward", {fused, fused_bf16_bias}, spec, [&, l, ld] { forward_fallback(l, batch, ld); })
               : choose(l, "forward", {fused}, spec, [&, l, ld] { forward_fallback(l, batch, ld); });
    p.forward = std::move(planned.gemm);
    p.forward_fused = planned.fused;
    p.writes_mask = hidden && planned.fused;
    plan.choices.gemms.push_back(planned.choice);
    return planned.timed_microseconds.value_or(0.0);
  };
  const auto plan_backward = [&](StepPlan& plan, std::size_t l, int ld) {
    LayerPlan& p = plan.layers[l];
    const int in = shape.fan_in(l);
    const int out = shape.fan_out(l);
    const lt::GemmSpec weight{.transpose_b = true,
                              .m = in,
                              .n = out,
                              .k = batch,
                              .lda = in,
                              .ldb = ld,
                              .ldd = in,
                              .a_type = op_type,
                              .b_type = op_type,
                              .d_type = CUDA_R_32F,
                              .compute = compute,
                              .a = layer_input(l),
                              .b = dy(l),
                              .d = gradients() + layout.layers[l].weight};
    lt::GemmSpec fused_weight = weight;
    fused_weight.epilogue = CUBLASLT_EPILOGUE_BGRADB;
    fused_weight.bias = gradients() + layout.layers[l].bias;
    fused_weight.bias_type = CUDA_R_32F;
    const auto bias_fallback = [&, l, ld] { bias_gradient_fallback(l, batch, ld); };
    Planned w = choose(l, "weight_gradient", {fused_weight}, weight, bias_fallback);
    // tf32: the same with the input transposed first, so A is read along K (TransposePolicy).
    const bool try_transposed =
        input_transposed() != nullptr && (policy.transposed_inputs == TransposePolicy::always ||
                                          (policy.transposed_inputs == TransposePolicy::measure && timing));
    if (try_transposed) {
      const auto transpose = [&, l] { transpose_input(l, batch, layer_input(l)); };
      transpose();  // the candidates' trial runs read what the step will
      lt::GemmSpec weight_t = weight;
      weight_t.transpose_a = true;
      weight_t.lda = mlp_gpu_detail::transposed_ld(batch);
      weight_t.a = input_transposed();
      lt::GemmSpec fused_weight_t = fused_weight;
      fused_weight_t.transpose_a = true;
      fused_weight_t.lda = weight_t.lda;
      fused_weight_t.a = input_transposed();
      Planned t = choose(l, "weight_gradient", {fused_weight_t}, weight_t, bias_fallback, {}, transpose, false);
      if (choose_transposed_input(policy.transposed_inputs, t.exists, w.timed_microseconds, t.timed_microseconds)) {
        t.choice.transposed_input = true;
        t.choice.other_way_microseconds = w.timed_microseconds;
        w = std::move(t);
      } else {
        w.choice.other_way_microseconds = t.timed_microseconds;
      }
    }
    p.weight_gradient = std::move(w.gemm);
    p.weight_gradient_fused = w.fused;
    p.weight_gradient_transposed = w.choice.transposed_input;
    plan.choices.gemms.push_back(w.choice);
    double total = w.timed_microseconds.value_or(0.0);
    if (l == 0) return total;

    const lt::GemmSpec input_grad{.m = in,
                                  .n = batch,
                                  .k = out,
                                  .lda = in,
                                  .ldb = ld,
                                  .ldd = in,
                                  .a_type = op_type,
                                  .b_type = op_type,
                                  .d_type = op_type,
                                  .compute = compute,
                                  .a = weight_operand(l),
                                  .b = dy(l),
                                  .d = dy(l - 1)};
    const auto relu = [&, l] { relu_gradient_fallback(l, batch); };
    // The output layer's few outputs make its input gradient a memory-bound pass that
    // hdbench's kernel does with the ReLU gradient in one go (mlp_narrow_kernels.hpp).
    std::function<void()> own;
    if (l == last && narrow_input_gradient_supported(l)) own = [&, l, ld] { narrow_input_gradient(l, batch, ld); };
    Planned x;
    if (plan.layers[l - 1].writes_mask) {
      lt::GemmSpec fused_input = input_grad;
      fused_input.epilogue = CUBLASLT_EPILOGUE_DRELU;
      fused_input.aux = at<char>(arena_layout.masks[l - 1]);
      fused_input.aux_ld = arena_layout.mask_ld[l - 1];
      x = choose(l, "input_gradient", {fused_input}, input_grad, relu, own);
    } else {
      x = choose(l, "input_gradient", {}, input_grad, relu, own);  // no mask to read: plain only
    }
    p.input_gradient = std::move(x.gemm);
    p.input_gradient_fused = x.fused;
    p.input_gradient_own_kernel = x.own_kernel;
    plan.choices.gemms.push_back(x.choice);
    return total + x.timed_microseconds.value_or(0.0);
  };

  // Hidden layers once, then the output layer under each layout worth trying.
  const int classes = shape.classes();
  const int padded = padded_width(classes, dtype);
  const auto plan_layout = [&](int ld) {
    StepPlan plan;
    plan.layers.resize(layers);
    plan.logits_ld = ld;
    plan.choices.classes = classes;
    plan.choices.logits_ld = ld;
    for (std::size_t l = 0; l < last; ++l) plan_forward(plan, l, shape.fan_out(l));
    double output_layer = plan_forward(plan, last, ld);
    output_layer += plan_backward(plan, last, ld);
    for (std::size_t l = last; l-- > 0;) plan_backward(plan, l, shape.fan_out(l));
    return std::make_pair(std::move(plan), output_layer);
  };
  // The hidden layers are planned (and timed) again for the second layout: planning
  // happens once per batch size, and it keeps each plan whole and independent.
  const bool try_unpadded = policy.padding != PaddingPolicy::padded || padded == classes;
  const bool try_padded = policy.padding != PaddingPolicy::unpadded && padded != classes;
  std::optional<std::pair<StepPlan, double>> unpadded_plan;
  std::optional<std::pair<StepPlan, double>> padded_plan;
  if (try_unpadded) unpadded_plan = plan_layout(classes);
  if (try_padded) padded_plan = plan_layout(padded);
  const bool timed = policy.padding == PaddingPolicy::measure;
  const std::optional<double> unpadded_us =
      unpadded_plan && timed ? std::optional<double>(unpadded_plan->second) : std::nullopt;
  const std::optional<double> padded_us =
      padded_plan && timed ? std::optional<double>(padded_plan->second) : std::nullopt;
  const bool use_padded = padded_plan && choose_padding(classes, dtype, policy.padding, unpadded_us, padded_us);
  StepPlan plan = std::move(use_padded ? padded_plan->first : unpadded_plan->first);
  plan.choices.unpadded_microseconds = unpadded_us;
  plan.choices.padded_microseconds = padded_us;
  for (const LayerPlan& p : plan.layers) {
    // hdbench's kernel in place of a GEMM is no fused cuBLASLt epilogue either.
    const bool has_input_gradient = p.input_gradient || p.input_gradient_own_kernel;
    if (!p.forward_fused || !p.weight_gradient_fused || (has_input_gradient && !p.input_gradient_fused)) fused = false;
  }
  return plan;
}

}  // namespace hdbench
