// The dataset both the loader and the mlp families read: Fashion-MNIST from Debian's
// dataset-fashion-mnist package when it is installed, a folder of MNIST IDX files
// (--hdbench_mnist_dir), or the synthetic MNIST-shaped set of --hdbench_loader_samples.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "core/flags.hpp"
#include "pipeline/dataset.hpp"

namespace hdbench {

// Where Debian's dataset-fashion-mnist puts its gzipped IDX files.
inline constexpr const char* kFashionMnistDir = "/usr/share/datasets/fashion-mnist";

struct DataOptions {
  std::size_t loader_samples = 60000;
  bool loader_samples_given = false;  // --hdbench_loader_samples was on the command line
  std::string mnist_dir;              // --hdbench_mnist_dir; empty: the default below
  // The folder used when neither flag is given and its training files are there.
  std::string default_idx_dir = kFashionMnistDir;
};

// Which data a run trains on, decided once from the options and the files present.
struct DatasetSource {
  std::string kind = "synthetic";  // report param `dataset`: "synthetic" or "mnist_idx"
  std::string name = "synthetic";  // report param `dataset_name`: synthetic, fashion_mnist, mnist_dir
  std::string dir;                 // the IDX folder; empty for synthetic
  std::size_t samples = 0;         // synthetic only: the set's size
  bool idx() const noexcept { return kind == "mnist_idx"; }
};

// --hdbench_mnist_dir wins; else an explicit --hdbench_loader_samples asks for the
// synthetic set of that size (the real set has one size); else the default folder
// when its training images and labels (plain or .gz) are both there; else synthetic.
DatasetSource resolve_dataset(const DataOptions& options);

// The training set of `source`: the IDX training files, or the synthetic set of
// `source.samples` (plus `extra` samples after it, for a held-out tail). Throws
// DatasetError for a missing or malformed file.
Dataset load_training_set(const DatasetSource& source, std::uint64_t seed, std::size_t extra = 0);

void declare_data_flags(FlagParser& flags, DataOptions& options);

// A dataset file that cannot be read, as the usage error it is: named after the flag
// that chose it (--hdbench_mnist_dir, or the default Fashion-MNIST set).
UsageError dataset_usage_error(const DataOptions& options, const std::exception& error);

}  // namespace hdbench
