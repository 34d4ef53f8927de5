#include "mlp/mlp_options.hpp"

#include <algorithm>

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
  flags.add("mlp_models", "LIST",
            "MLP widths, e.g. 784x32x10 (default 784x32x10,784x4096x4096x10,784x4096x4096x4096x10)",
            [&o](auto flag, auto v) { o.models = parse_model_list(flag, v); });
  flags.add("mlp_batches", "LIST", "training-step batch sizes, 1..1048576 (default 32,128,1024,8192,16384)",
            [&o](auto flag, auto v) { o.batches = parse_int_list(flag, v, 1, 1 << 20); });
  flags.add("mlp_processors", "LIST", "cpu (OpenBLAS), gpu (cuBLASLt) (default both)", [&o](auto flag, auto v) {
    o.processors = parse_enum_list<Processor>(flag, v, processor_from_string, all_processors());
  });
  flags.add(
      "mlp_dtypes", "LIST", "fp32, tf32, bf16 (GPU; the CPU step is fp32) (default all)", [&o](auto flag, auto v) {
        o.dtypes =
            parse_enum_list<MlpDtype>(flag, v, mlp_dtype_from_string, {MlpDtype::fp32, MlpDtype::tf32, MlpDtype::bf16});
      });
  flags.add("mlp_optimizers", "LIST", "sgd (with momentum), adam (default sgd)", [&o](auto flag, auto v) {
    o.optimizers =
        parse_enum_list<OptimizerKind>(flag, v, optimizer_from_string, {OptimizerKind::sgd, OptimizerKind::adam});
  });
  flags.add("mlp_modes", "LIST", "eager, graph (GPU: the step captured once into a CUDA graph) (default both)",
            [&o](auto flag, auto v) {
              o.modes = parse_enum_list<StepMode>(flag, v, step_mode_from_string, {StepMode::eager, StepMode::graph});
            });
  flags.add("mlp_data", "LIST",
            "device (batch already there), pageable, pinned (GPU step copies it first) (default all)",
            [&o](auto flag, auto v) {
              o.data = parse_enum_list<BatchSource>(flag, v, batch_source_from_string, all_batch_sources());
            });
  flags.add("mlp_threads", "LIST",
            "CPU step threads (OpenBLAS and element-wise); auto: the fastest of 1, 2, 4, ... cores, swept once per "
            "model and batch (default auto)",
            [&o, max_threads](auto flag, auto v) {
              o.threads = v == "auto" ? std::vector<int>{} : parse_int_list(flag, v, 1, max_threads);
            });
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
  flags.add("mlp_epoch_models", "LIST", "models trained for whole epochs fed by the loader (default 784x32x10)",
            [&o](auto flag, auto v) { o.epoch_models = parse_model_list(flag, v); });
  flags.add("mlp_epoch_batches", "LIST", "epoch batch sizes, 1..65536 (default 128,1024)",
            [&o](auto flag, auto v) { o.epoch_batches = parse_int_list(flag, v, 1, 65536); });
  flags.add("mlp_epoch_workers", "LIST", "loader workers feeding the epochs, 0..1024 (default 0,2,8)",
            [&o](auto flag, auto v) { o.epoch_workers = parse_int_list(flag, v, 0, 1024); });
  flags.add("mlp_epoch_pinning", "LIST", "pageable, pin_thread, direct: how epoch batches reach the GPU (default all)",
            [&o](auto flag, auto v) {
              o.epoch_pinning = parse_enum_list<PinMode>(flag, v, pin_mode_from_string, all_pin_modes());
            });
  flags.add_check([&o, &flags] {
    // The tutorials' model, and one large for the GPU's side of the comparison.
    flags.apply_preset("mlp_models", o.models, parse_model_list("mlp_models", "784x32x10"),
                       parse_model_list("mlp_models", "784x32x10,784x4096x4096x10"));
    flags.apply_preset("mlp_batches", o.batches, {128}, {128, 1024});
    flags.apply_preset("mlp_dtypes", o.dtypes, {MlpDtype::fp32}, {MlpDtype::fp32, MlpDtype::bf16});
    flags.apply_preset("mlp_modes", o.modes, {StepMode::eager}, o.modes);
    flags.apply_preset("mlp_data", o.data, {BatchSource::device}, o.data);
    flags.apply_preset("mlp_epoch_batches", o.epoch_batches, {128}, o.epoch_batches);
    flags.apply_preset("mlp_epoch_workers", o.epoch_workers, {2}, o.epoch_workers);
    flags.apply_preset("mlp_epoch_pinning", o.epoch_pinning, {PinMode::pin_thread}, o.epoch_pinning);
  });
  flags.add_report([&o](nlohmann::json& j) {
    j["mlp_models"] = model_names(o.models);
    j["mlp_batches"] = o.batches;
    j["mlp_processors"] = names_of(o.processors);
    j["mlp_dtypes"] = names_of(o.dtypes);
    j["mlp_optimizers"] = names_of(o.optimizers);
    j["mlp_modes"] = names_of(o.modes);
    j["mlp_data"] = names_of(o.data);
    if (o.threads.empty()) {
      j["mlp_threads"] = "auto";
    } else {
      j["mlp_threads"] = o.threads;
    }
    j["mlp_cpu_step_tflop_limit"] = o.cpu_step_tflop_limit;
    j["mlp_sample_ms"] = o.sample_ms;
    j["mlp_epoch_models"] = model_names(o.epoch_models);
    j["mlp_epoch_batches"] = o.epoch_batches;
    j["mlp_epoch_workers"] = o.epoch_workers;
    j["mlp_epoch_pinning"] = names_of(o.epoch_pinning);
  });
}

}  // namespace hdbench
