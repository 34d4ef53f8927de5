#include "mlp/training_data.hpp"

#include <filesystem>
#include <vector>

#include "data/batch_plan.hpp"
#include "mlp/mlp_cpu.hpp"
#include "data/sample_transform.hpp"

namespace hdbench {

void TrainingData::build() {
  std::call_once(built_, [&] {
    if (options_.mnist_dir.empty()) {
      // A shorter synthetic set is a prefix of a longer one: the tail is new samples.
      Dataset all = make_synthetic_mnist(options_.loader_samples + kHeldOutSamples, seed_);
      const std::size_t pixels = all.pixels_per_sample();
      Dataset tail;
      tail.rows = all.rows;
      tail.cols = all.cols;
      tail.pixels.assign(all.pixels.begin() + static_cast<std::ptrdiff_t>(options_.loader_samples * pixels),
                         all.pixels.end());
      tail.labels.assign(all.labels.begin() + static_cast<std::ptrdiff_t>(options_.loader_samples), all.labels.end());
      all.pixels.resize(options_.loader_samples * pixels);
      all.labels.resize(options_.loader_samples);
      train_ = std::move(all);
      held_out_ = std::move(tail);
      return;
    }
    train_ = read_mnist_idx(mnist_images_path(options_.mnist_dir), mnist_labels_path(options_.mnist_dir));
    const std::filesystem::path dir(options_.mnist_dir);
    const auto images = dir / "t10k-images-idx3-ubyte";
    const auto labels = dir / "t10k-labels-idx1-ubyte";
    if (std::filesystem::exists(images) && std::filesystem::exists(labels))
      held_out_ = read_mnist_idx(images.string(), labels.string());
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
    const StepResult r = mlp.evaluate(reinterpret_cast<const float*>(batch.data()),
                                      layout.labels(batch.data(), n), n);
    loss += r.loss * static_cast<double>(n);
    correct += r.correct;
  }
  const auto total = static_cast<double>(samples.size());
  return {loss / total, static_cast<double>(correct) / total};
}

}  // namespace hdbench
