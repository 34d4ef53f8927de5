// The strided family's flags: the matrices, the slices taken of them, the ways moved.
#pragma once

#include <optional>
#include <string_view>
#include <vector>

#include "core/flags.hpp"
#include "strided/strided_layout.hpp"

namespace hdbench {

enum class StridedMethod {
  memcpy2d,        // cudaMemcpy2DAsync from the pinned matrix
  pack_then_copy,  // a host pack (tensor.contiguous()) into pinned memory (timed), then one copy
  mapped_kernel,   // a kernel reads the rows over mapped memory and writes them packed
  contiguous,      // the reference: one copy of the same bytes already contiguous
};

const char* to_string(StridedMethod m) noexcept;
std::optional<StridedMethod> strided_method_from_string(std::string_view name);
std::vector<StridedMethod> all_strided_methods();

struct StridedOptions {
  std::vector<MatrixShape> matrices = {{1024, 1024}, {4096, 4096}, {8192, 8192}};
  std::vector<SliceKind> slices = all_slice_kinds();
  std::vector<StridedMethod> methods = all_strided_methods();
};

// "4096x4096,1024x8192": rows x columns of fp32, each at least 2x2.
std::vector<MatrixShape> parse_matrix_list(std::string_view flag, std::string_view text);

void declare_strided_flags(FlagParser& flags, StridedOptions& options, const OptionLimits& limits);

}  // namespace hdbench
