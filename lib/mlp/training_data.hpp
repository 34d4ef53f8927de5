// The samples the MLP family trains on and the ones it measures accuracy on: the
// synthetic set (--hdbench_loader_samples) with the next 10000 samples of the same
// generator held out, or the IDX training files (Fashion-MNIST by default,
// --hdbench_mnist_dir) with their t10k files, plain or .gz, held out when they are
// there. Which one is decided at construction (resolve_dataset); the samples are
// read or built once, on first use.
#pragma once

#include <cstddef>
#include <cstdint>
#include <mutex>
#include <optional>

#include "mlp/mlp_model.hpp"
#include "pipeline/data_options.hpp"
#include "pipeline/dataset.hpp"

namespace hdbench {

inline constexpr std::size_t kHeldOutSamples = 10000;

class TrainingData {
 public:
  TrainingData(const DataOptions& options, std::uint64_t seed) : source_(resolve_dataset(options)), seed_(seed) {}

  const DatasetSource& source() const noexcept { return source_; }

  const Dataset& train();
  // Both throw DatasetError for a missing or malformed file (train() first reads all).
  // nullptr when there is none (IDX training files without t10k files beside them).
  const Dataset* held_out();

 private:
  void build();

  DatasetSource source_;
  std::uint64_t seed_;
  std::once_flag built_;
  Dataset train_;
  std::optional<Dataset> held_out_;
};

// Writes `count` samples of `dataset` from index `first` on (wrapping around its end)
// in the loader's batch layout (normalised images, then int32 labels) to `out`.
void collate_range(const Dataset& dataset, std::size_t first, std::size_t count, void* out);

// Mean cross-entropy and accuracy of a parameter set on `samples`, evaluated on the
// CPU in batches: how a model trained anywhere is scored the same way.
struct Evaluation {
  double loss = 0.0;
  double accuracy = 0.0;  // fraction correct
};
Evaluation evaluate_on_cpu(const MlpShape& shape, std::span<const float> parameters, const Dataset& samples,
                           int threads);

}  // namespace hdbench
