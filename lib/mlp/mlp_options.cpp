#include "mlp/mlp_options.hpp"

#include <algorithm>
#include <utility>

#include "core/axis.hpp"

namespace hdbench {
namespace {

// Comma-separated MLP widths ("784x32x10,784x4096x10"); the model parser says what is
// wrong with a bad one.
std::vector<MlpShape> parse_model_list(std::string_view flag, std::string_view text) {
  std::vector<MlpShape> models;
  for (std::string_view item : split(text, ',')) {
    try {
      models.push_back(parse_mlp_shape(item));
    } catch (const MlpConfigError& error) {
      throw UsageError(fmt::format("--hdbench_{}: {}", flag, error.what()));
    }
  }
  return models;
}

std::vector<std::string> model_names(const std::vector<MlpShape>& models) {
  std::vector<std::string> names;
  for (const MlpShape& m : models) names.push_back(to_string(m));
  return names;
}

}  // namespace

void declare_mlp_flags(FlagParser& flags, MlpOptions& o, const OptionLimits& limits) {
  o.models = parse_model_list("mlp_models", "784x32x10,784x4096x4096x10,784x4096x4096x4096x10");
  o.epoch_models = parse_model_list("mlp_epoch_models", "784x32x10");
  o.threads = {};  // auto: the sweep
  o.cores = std::max(1, limits.hardware_threads);
  const int max_threads = std::max(256, limits.hardware_threads * 4);

  flags.group("mlp");
  const auto models = [](auto flag, auto v) { return parse_model_list(flag, v); };
  const auto model_report = [](const std::vector<MlpShape>& m) { return nlohmann::json(model_names(m)); };
  // The tutorials' model, and one large for the GPU's side of the comparison.
  declare_axis<MlpShape>(
      flags, o.models,
      {.flag = "mlp_models",
       .value_help = "LIST",
       .description = "MLP widths, e.g. 784x32x10 (default 784x32x10,784x4096x4096x10,784x4096x4096x4096x10)",
       .parse = models,
       .quick = parse_model_list("mlp_models", "784x32x10"),
       .standard = parse_model_list("mlp_models", "784x32x10,784x4096x4096x10"),
       .report_field = "mlp_models",
       .report = model_report});
  declare_axis<int>(flags, o.batches,
                    {.flag = "mlp_batches",
                     .value_help = "LIST",
                     .description = "training-step batch sizes, 1..1048576 (default 32,128,1024,8192,16384)",
                     .parse = [](auto flag, auto v) { return parse_int_list(flag, v, 1, 1 << 20); },
                     .quick = std::vector<int>{128},
                     .standard = std::vector<int>{128, 1024},
                     .report_field = "mlp_batches"});
  declare_axis(flags, o.processors,
               enum_axis<Processor>("mlp_processors", "cpu (OpenBLAS), gpu (cuBLASLt) (default both)",
                                    processor_from_string, all_processors()));
  Axis<MlpDtype> dtypes =
      enum_axis<MlpDtype>("mlp_dtypes", "fp32, tf32, bf16 (GPU; the CPU step is fp32) (default all)",
                          mlp_dtype_from_string, {MlpDtype::fp32, MlpDtype::tf32, MlpDtype::bf16});
  dtypes.quick = std::vector<MlpDtype>{MlpDtype::fp32};
  dtypes.standard = std::vector<MlpDtype>{MlpDtype::fp32, MlpDtype::bf16};
  declare_axis(flags, o.dtypes, std::move(dtypes));
  declare_axis(flags, o.optimizers,
               enum_axis<OptimizerKind>("mlp_optimizers", "sgd (with momentum), adam (default sgd)",
                                        optimizer_from_string, {OptimizerKind::sgd, OptimizerKind::adam}));
  Axis<StepMode> modes = enum_axis<StepMode>(
      "mlp_modes",
      "eager, graph (GPU: the step captured once into a CUDA graph), fused (GPU: two fused kernels of hdbench's own "
      "replayed from a graph; two-layer fp32 SGD models with hidden <= 64 and classes <= 16, others skipped), "
      "overlap (GPU: the graph with each layer's update on a second stream, overlapped with the backward GEMMs "
      "of the layers below) (default eager,graph; the full preset adds fused and overlap)",
      step_mode_from_string, {StepMode::eager, StepMode::graph, StepMode::fused, StepMode::overlap});
  modes.quick = std::vector<StepMode>{StepMode::eager};
  // A new mode adds cases, and time, to a run: the default preset keeps eager and graph.
  modes.standard = std::vector<StepMode>{StepMode::eager, StepMode::graph};
  declare_axis(flags, o.modes, std::move(modes));
  Axis<BatchSource> data = enum_axis<BatchSource>(
      "mlp_data", "device (batch already there), pageable, pinned (GPU step copies it first) (default all)",
      batch_source_from_string, all_batch_sources());
  data.quick = std::vector<BatchSource>{BatchSource::device};
  declare_axis(flags, o.data, std::move(data));
  // Empty means auto (the sweep), written "auto" in the report.
  declare_axis<int>(
      flags, o.threads,
      {.flag = "mlp_threads",
       .value_help = "LIST",
       .description = "CPU step threads (OpenBLAS and element-wise); auto: the fastest of 1, 2, 4, ... "
                      "cores, swept once per model and batch (default auto)",
       .parse = [max_threads](
                    auto flag,
                    auto v) { return v == "auto" ? std::vector<int>{} : parse_int_list(flag, v, 1, max_threads); },
       .report_field = "mlp_threads",
       .report = [](const std::vector<int>& t) { return t.empty() ? nlohmann::json("auto") : nlohmann::json(t); }});
  declare_axis<int>(flags, o.busy_threads,
                    {.flag = "mlp_cpu_busy_threads",
                     .value_help = "LIST",
                     .description = "busy threads of our own spinning beside each CPU step while it is timed (a busy "
                                    "host), 0..cores (default 0)",
                     .parse = [max_threads](auto flag, auto v) { return parse_int_list(flag, v, 0, max_threads); },
                     .report_field = "mlp_cpu_busy_threads"});
  flags.add("mlp_cpu_step_tflop_limit", "T", "skip CPU steps doing more than T TFLOP, 0.000001..1000 (default 0.2)",
            [&o](auto flag, auto v) {
              o.cpu_step_tflop_limit =
                  parse_one_number(flag, v, 1e-6, 1000.0, "one number of TFLOP from 0.000001 to 1000");
            });
  flags.add("mlp_sample_ms", "MS",
            "steps are timed in groups lasting about MS ms (at most 1000 steps), 0.01..1000 (default 2)",
            [&o](auto flag, auto v) {
              o.sample_ms = parse_one_number(flag, v, 0.01, 1000.0, "one number of milliseconds from 0.01 to 1000");
            });
  declare_axis<MlpShape>(flags, o.epoch_models,
                         {.flag = "mlp_epoch_models",
                          .value_help = "LIST",
                          .description = "models trained for whole epochs fed by the loader (default 784x32x10)",
                          .parse = models,
                          .report_field = "mlp_epoch_models",
                          .report = model_report});
  declare_axis<int>(flags, o.epoch_batches,
                    {.flag = "mlp_epoch_batches",
                     .value_help = "LIST",
                     .description = "epoch batch sizes, 1..65536 (default 128,1024)",
                     .parse = [](auto flag, auto v) { return parse_int_list(flag, v, 1, 65536); },
                     .quick = std::vector<int>{128},
                     .report_field = "mlp_epoch_batches"});
  declare_axis<int>(flags, o.epoch_workers,
                    {.flag = "mlp_epoch_workers",
                     .value_help = "LIST",
                     .description = "loader workers feeding the epochs, 0..1024 (default 0,2,8)",
                     .parse = [](auto flag, auto v) { return parse_int_list(flag, v, 0, 1024); },
                     .quick = std::vector<int>{2},
                     .report_field = "mlp_epoch_workers"});
  Axis<PinMode> epoch_pinning = enum_axis<PinMode>(
      "mlp_epoch_pinning", "pageable, pin_thread, direct: how epoch batches reach the GPU (default all)",
      pin_mode_from_string, all_pin_modes());
  epoch_pinning.quick = std::vector<PinMode>{PinMode::pin_thread};
  declare_axis(flags, o.epoch_pinning, std::move(epoch_pinning));
  flags.add_report([&o](nlohmann::json& j) {
    j["mlp_cpu_step_tflop_limit"] = o.cpu_step_tflop_limit;
    j["mlp_sample_ms"] = o.sample_ms;
  });
}

}  // namespace hdbench
