// The samples the MLP family trains on and the ones it measures accuracy on: the
// synthetic set (--hdbench_loader_samples) with the next 10000 samples of the same
// generator held out, or the MNIST IDX files of --hdbench_mnist_dir with its t10k
// files held out when they are there. Built once, on first use.
#pragma once

#include <cstddef>
#include <cstdint>
#include <mutex>
#include <optional>

#include "data/dataset.hpp"
#include "data/data_options.hpp"
#include "mlp/mlp_model.hpp"

namespace hdbench {

inline constexpr std::size_t kHeldOutSamples = 10000;

class TrainingData {
 public:
  TrainingData(const DataOptions& options, std::uint64_t seed) : options_(options), seed_(seed) {}

  const Dataset& train();
  // nullptr when there is none (IDX training files without t10k files beside them).
  const Dataset* held_out();

 private:
  void build();

  const DataOptions& options_;
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
