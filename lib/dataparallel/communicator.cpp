#include "dataparallel/communicator.hpp"

#include <fmt/format.h>

#include <cstdlib>

namespace hdbench::dataparallel {

std::string timeout_message(int rank, int size, std::string_view what, double timeout_s) {
  return fmt::format(
      "rank {} of {}: {} did not complete within {:g} s (--hdbench_dp_timeout_s): another rank died or stalled", rank,
      size, what, timeout_s);
}

std::string detect_launcher(const char* (*getenv_fn)(const char*)) {
  const auto get = [getenv_fn](const char* name) -> const char* {
    return getenv_fn != nullptr ? getenv_fn(name) : std::getenv(name);
  };
  if (get("OMPI_COMM_WORLD_SIZE") != nullptr) return "openmpi";
  if (get("PMIX_RANK") != nullptr) return "pmix";
  if (get("PMI_SIZE") != nullptr) return "pmi";
  if (get("SLURM_STEP_ID") != nullptr && get("SLURM_NTASKS") != nullptr) return "slurm";
  return "";
}

}  // namespace hdbench::dataparallel
