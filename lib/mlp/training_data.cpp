#include "mlp/training_data.hpp"

#include <filesystem>
#include <vector>

#include "mlp/mlp_cpu.hpp"
#include "pipeline/batch_plan.hpp"
#include "pipeline/sample_transform.hpp"

namespace hdbench {

void TrainingData::build() {
  std::call_once(built_, [&] {
    if (!source_.idx()) {
      // A shorter synthetic set is a prefix of a longer one: the tail is new samples.
      Dataset all = load_training_set(source_, seed_, kHeldOutSamples);
      const std::size_t pixels = all.pixels_per_sample();
      Dataset tail;
      tail.rows = all.rows;
      tail.cols = all.cols;
      tail.pixels.assign(all.pixels.begin() + static_cast<std::ptrdiff_t>(source_.samples * pixels), all.pixels.end());
      tail.labels.assign(all.labels.begin() + static_cast<std::ptrdiff_t>(source_.samples), all.labels.end());
      all.pixels.resize(source_.samples * pixels);
      all.labels.resize(source_.samples);
      train_ = std::move(all);
      held_out_ = std::move(tail);
      return;
    }
    train_ = load_training_set(source_, seed_);
    const std::string images = idx_file_in(source_.dir, "t10k-images-idx3-ubyte");
    const std::string labels = idx_file_in(source_.dir, "t10k-labels-idx1-ubyte");
    if (std::filesystem::exists(images) && std::filesystem::exists(labels)) held_out_ = read_mnist_idx(images, labels);
  });
}

const Dataset& TrainingData::train() {
  build();
  return train_;
}

const Dataset* TrainingData::held_out() {
  build();
  return held_out_ ? &*held_out_ : nullptr;
}

void collate_range(const Dataset& dataset, std::size_t first, std::size_t count, void* out) {
  std::vector<std::uint32_t> ids(count);
  for (std::size_t i = 0; i < count; ++i) ids[i] = static_cast<std::uint32_t>((first + i) % dataset.size());
  collate_batch(dataset, ids, 0, {}, out);
}

Evaluation evaluate_on_cpu(const MlpShape& shape, std::span<const float> parameters, const Dataset& samples,
                           int threads) {
  constexpr std::size_t kBatch = 1000;
  const BatchLayout layout{samples.pixels_per_sample()};
  CpuMlp mlp(shape, {}, kBatch, threads, parameters);
  std::vector<unsigned char> batch(layout.batch_bytes(kBatch));
  double loss = 0.0;
  std::size_t correct = 0;
  for (std::size_t first = 0; first < samples.size(); first += kBatch) {
    const std::size_t n = std::min(kBatch, samples.size() - first);
    collate_range(samples, first, n, batch.data());
    const StepResult r = mlp.evaluate(reinterpret_cast<const float*>(batch.data()), layout.labels(batch.data(), n), n);
    loss += r.loss * static_cast<double>(n);
    correct += r.correct;
  }
  const auto total = static_cast<double>(samples.size());
  return {loss / total, static_cast<double>(correct) / total};
}

}  // namespace hdbench
