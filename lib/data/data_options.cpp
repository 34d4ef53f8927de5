#include "data/data_options.hpp"

namespace hdbench {

void declare_data_flags(FlagParser& flags, DataOptions& o) {
  flags.group("data", "the dataset of the loader and mlp families");
  flags.add("loader_samples", "N", "samples in the synthetic dataset, 1..10000000 (default 60000, MNIST's training set)",
            [&o](auto flag, auto v) {
              const std::uint64_t n = parse_unsigned(flag, v, "a sample count from 1 to 10000000");
              if (n < 1 || n > 10'000'000) bad_value(flag, v, "a sample count from 1 to 10000000");
              o.loader_samples = static_cast<std::size_t>(n);
            });
  flags.add("mnist_dir", "DIR", "read DIR/train-images-idx3-ubyte and DIR/train-labels-idx1-ubyte instead",
            [&o](auto flag, auto v) { o.mnist_dir = parse_nonempty(flag, v, "a folder holding the MNIST IDX files"); });
  flags.add_report([&o](nlohmann::json& j) {
    j["loader_samples"] = o.loader_samples;
    j["mnist_dir"] = o.mnist_dir;
  });
}

}  // namespace hdbench
