// What the MLP family's two files share: the training data, the seed of the initial
// parameters, and the GEMM rates measured in this run. mlp.cpp registers the steps
// and GEMMs, mlp_epoch.cpp the epochs fed by the loader.
#pragma once

#include <memory>
#include <optional>
#include <string>

#include "families.hpp"
#include "training_data.hpp"

namespace hdbench {

class GemmRates;

struct MlpFamily {
  explicit MlpFamily(const Options& options);
  ~MlpFamily();
  TrainingData data;
  std::uint64_t seed;  // of the initial parameters: every step and epoch starts from the same network
  std::unique_ptr<GemmRates> gemm_rates;
};

void register_mlp_epochs(Suite& suite, const std::shared_ptr<MlpFamily>& family);

}  // namespace hdbench
