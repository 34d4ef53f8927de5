#include "mlp/cpu_blas.hpp"

#include <cblas.h>
#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <cstring>
#include <map>

#include "mlp/narrow_gemm.hpp"

namespace hdbench {
namespace {

// Set for the re-executed process: the core the library chose before hdbench changed it.
constexpr const char* kLibraryCoreVariable = "HDBENCH_OPENBLAS_LIBRARY_CORE";

std::string lower(std::string_view text) {
  std::string out(text);
  std::transform(out.begin(), out.end(), out.begin(), [](unsigned char c) { return std::tolower(c); });
  return out;
}

const char* environment(const char* name) {
  const char* value = std::getenv(name);
  return value == nullptr ? "" : value;
}

}  // namespace

void declare_cpu_blas_flags(FlagParser& flags, CpuBlasOptions& o) {
  flags.group("cpu_blas", "the CPU step's OpenBLAS kernels");
  flags.add("cpu_blas_core", "auto|keep|NAME",
            "auto: use the best OpenBLAS core for this CPU when the library picked an older one; keep: the "
            "library's choice; NAME: that core, e.g. Haswell (default auto)",
            [&o](auto flag, auto v) {
              if (v.empty() || v.find_first_of(" ,/=") != std::string_view::npos) {
                bad_value(flag, v, "auto, keep or an OpenBLAS core name such as SkylakeX, Haswell, Zen");
              }
              o.core = std::string(v);
            });
  flags.add_report([&o](nlohmann::json& j) { j["cpu_blas_core"] = o.core; });
}

VectorLevel openblas_core_level(std::string_view core) {
  static const std::map<std::string, VectorLevel> levels = {
      {"skylakex", VectorLevel::avx512},       {"cooperlake", VectorLevel::avx512},
      {"sapphirerapids", VectorLevel::avx512}, {"haswell", VectorLevel::avx2_fma},
      {"zen", VectorLevel::avx2_fma},          {"sandybridge", VectorLevel::avx},
      {"bulldozer", VectorLevel::avx},         {"piledriver", VectorLevel::avx},
      {"steamroller", VectorLevel::avx},       {"excavator", VectorLevel::avx2_fma},
  };
  const auto it = levels.find(lower(core));
  return it == levels.end() ? VectorLevel::sse : it->second;
}

std::string best_openblas_core(const CpuFeatures& cpu) {
  switch (cpu.level()) {
    case VectorLevel::avx512:
      return "SkylakeX";
    case VectorLevel::avx2_fma:
      return cpu.vendor == "AuthenticAMD" ? "Zen" : "Haswell";
    case VectorLevel::avx:
      return "Sandybridge";
    case VectorLevel::sse:
      return "";
  }
  return "";
}

std::optional<std::string> blas_core_to_use(std::string_view mode, std::string_view library_core,
                                            const CpuFeatures& cpu) {
  if (mode == "keep") return std::nullopt;
  if (mode != "auto") {
    if (lower(mode) == lower(library_core)) return std::nullopt;
    return std::string(mode);
  }
  const std::string best = best_openblas_core(cpu);
  if (best.empty() || openblas_core_level(library_core) >= cpu.level()) return std::nullopt;
  return best;
}

std::string openblas_core_name() {
  const char* name = openblas_get_corename();
  return name == nullptr ? "" : name;
}

std::string openblas_build_config() {
  const char* config = openblas_get_config();
  return config == nullptr ? "" : config;
}

void ensure_blas_core(const CpuBlasOptions& options, const CpuFeatures& cpu, char** argv) {
  if (std::getenv(kLibraryCoreVariable) != nullptr) {  // already re-executed once
    // OpenBLAS takes a name it does not know, or kernels this CPU cannot run, without a word.
    if (options.core != "auto" && options.core != "keep" && lower(options.core) != lower(openblas_core_name())) {
      fmt::print(stderr,
                 "hdbench: warning: --hdbench_cpu_blas_core={}: OpenBLAS runs its {} kernels instead (a name it "
                 "does not know, or kernels this CPU cannot run); the report says both\n",
                 options.core, openblas_core_name());
    }
    return;
  }
  const std::string library_core = openblas_core_name();
  const std::optional<std::string> core = blas_core_to_use(options.core, library_core, cpu);
  if (!core) return;
  fmt::print(stderr,
             "hdbench: OpenBLAS chose its {} kernels on a CPU with {}; re-running with "
             "OPENBLAS_CORETYPE={} (--hdbench_cpu_blas_core=keep keeps the library's choice)\n",
             library_core, to_string(cpu.level()), *core);
  setenv(kLibraryCoreVariable, library_core.c_str(), 1);
  setenv("OPENBLAS_CORETYPE", core->c_str(), 1);
  execv("/proc/self/exe", argv);
  fmt::print(stderr, "hdbench: could not re-execute itself ({}); the CPU step keeps OpenBLAS's {} kernels\n",
             std::strerror(errno), library_core);
}

nlohmann::json cpu_blas_report(const CpuBlasOptions& options) {
  const std::string in_use = openblas_core_name();
  const char* before = std::getenv(kLibraryCoreVariable);
  return {{"library", "OpenBLAS"},
          {"build_config", openblas_build_config()},
          {"core_chosen_by_library", before == nullptr ? in_use : std::string(before)},
          {"core_in_use", in_use},
          {"mode", options.core},
          {"OPENBLAS_CORETYPE", environment("OPENBLAS_CORETYPE")},
          {"narrow_kernels", to_string(narrow_gemm_isa())}};
}

}  // namespace hdbench
