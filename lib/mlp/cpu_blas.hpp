// The CPU step's BLAS (OpenBLAS) on kernels that match the CPU. A DYNAMIC_ARCH
// OpenBLAS picks its kernels ("core") once, when it loads, and falls back to old SSE3
// kernels (Prescott) on CPUs newer than itself: 3.9x slower on the H100's host. With
// --hdbench_cpu_blas_core=auto hdbench detects a core below what the CPU's
// instruction sets allow and re-executes itself once with OPENBLAS_CORETYPE set to
// the best core the library has; the report records what the library chose and what
// ran. `keep` leaves the library's choice; a NAME forces that core.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>

#include "core/cpu_features.hpp"
#include "core/flags.hpp"

namespace hdbench {

struct CpuBlasOptions {
  std::string core = "auto";  // auto, keep, or an OpenBLAS core name
};

void declare_cpu_blas_flags(FlagParser& flags, CpuBlasOptions& options);

// The vector level an OpenBLAS core's kernels use (unknown names: sse).
VectorLevel openblas_core_level(std::string_view core);
// The best OpenBLAS core for this CPU's level and vendor.
std::string best_openblas_core(const CpuFeatures& cpu);
// The OPENBLAS_CORETYPE to run with, or nothing to keep the library's choice.
std::optional<std::string> blas_core_to_use(std::string_view mode, std::string_view library_core,
                                            const CpuFeatures& cpu);

// The core the loaded OpenBLAS uses, and its build configuration.
std::string openblas_core_name();
std::string openblas_build_config();

// Called once at start-up, before any benchmark: re-executes this process with
// OPENBLAS_CORETYPE set when `blas_core_to_use` says so (and it has not yet). Returns
// only when no re-execution is needed; a failed exec is reported and the run goes on.
void ensure_blas_core(const CpuBlasOptions& options, const CpuFeatures& cpu, char** argv);
// context.hdbench.cpu_blas: library, build config, the core the library chose on its
// own, the core in use, and the mode.
nlohmann::json cpu_blas_report(const CpuBlasOptions& options);

}  // namespace hdbench
