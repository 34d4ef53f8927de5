#include "pipeline/data_options.hpp"

#include <filesystem>
#include <system_error>

namespace hdbench {
namespace {

bool is_file(const std::string& path) {
  std::error_code ec;
  return std::filesystem::is_regular_file(path, ec);
}

// The Debian folder is Fashion-MNIST whichever way it was named.
bool is_fashion_mnist_dir(const std::string& dir) {
  std::error_code ec;
  return std::filesystem::equivalent(dir, kFashionMnistDir, ec);
}

}  // namespace

DatasetSource resolve_dataset(const DataOptions& o) {
  DatasetSource source;
  if (!o.mnist_dir.empty()) {
    source.dir = o.mnist_dir;
  } else if (!o.loader_samples_given && !o.default_idx_dir.empty() && is_file(mnist_images_path(o.default_idx_dir)) &&
             is_file(mnist_labels_path(o.default_idx_dir))) {
    source.dir = o.default_idx_dir;
  } else {
    source.samples = o.loader_samples;
    return source;
  }
  source.kind = "mnist_idx";
  source.name = is_fashion_mnist_dir(source.dir) ? "fashion_mnist" : "mnist_dir";
  return source;
}

Dataset load_training_set(const DatasetSource& source, std::uint64_t seed, std::size_t extra) {
  if (!source.idx()) return make_synthetic_mnist(source.samples + extra, seed);
  return read_mnist_idx(mnist_images_path(source.dir), mnist_labels_path(source.dir));
}

void declare_data_flags(FlagParser& flags, DataOptions& o) {
  flags.group("data", "the dataset of the loader and mlp families");
  flags.add("loader_samples", "N",
            "train on the synthetic set of N samples, 1..10000000, instead of Fashion-MNIST (default: Fashion-MNIST "
            "when dataset-fashion-mnist is installed, else 60000 synthetic samples)",
            [&o](auto flag, auto v) {
              const std::uint64_t n = parse_unsigned(flag, v, "a sample count from 1 to 10000000");
              if (n < 1 || n > 10'000'000) bad_value(flag, v, "a sample count from 1 to 10000000");
              o.loader_samples = static_cast<std::size_t>(n);
              o.loader_samples_given = true;
            });
  flags.add("mnist_dir", "DIR",
            "read DIR/train-{images-idx3,labels-idx1}-ubyte[.gz] (and t10k-* as held-out samples) instead",
            [&o](auto flag, auto v) { o.mnist_dir = parse_nonempty(flag, v, "a folder holding the MNIST IDX files"); });
  flags.add_report([&o](nlohmann::json& j) {
    const DatasetSource source = resolve_dataset(o);
    j["loader_samples"] = o.loader_samples;
    j["mnist_dir"] = o.mnist_dir;
    j["dataset"] = source.kind;
    j["dataset_name"] = source.name;
    j["dataset_dir"] = source.dir;
  });
}

UsageError dataset_usage_error(const DataOptions& o, const std::exception& error) {
  return UsageError(fmt::format("{}: {}",
                                o.mnist_dir.empty() ? "the default dataset (Fashion-MNIST; --hdbench_loader_samples=N "
                                                      "trains on synthetic data instead)"
                                                    : "--hdbench_mnist_dir",
                                error.what()));
}

}  // namespace hdbench
