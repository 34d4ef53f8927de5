#include "strided/strided_options.hpp"

#include <fmt/format.h>

#include <charconv>

#include "core/axis.hpp"
#include "core/enum_names.hpp"
#include "core/option_values.hpp"

namespace hdbench {

const char* to_string(StridedMethod m) noexcept {
  switch (m) {
    case StridedMethod::memcpy2d:
      return "memcpy2d";
    case StridedMethod::pack_then_copy:
      return "pack_then_copy";
    case StridedMethod::mapped_kernel:
      return "mapped_kernel";
    case StridedMethod::contiguous:
      return "contiguous";
  }
  return "unknown";
}

std::vector<StridedMethod> all_strided_methods() {
  return {StridedMethod::memcpy2d, StridedMethod::pack_then_copy, StridedMethod::mapped_kernel,
          StridedMethod::contiguous};
}

std::optional<StridedMethod> strided_method_from_string(std::string_view name) {
  return enum_from_name(name, all_strided_methods());
}

std::vector<MatrixShape> parse_matrix_list(std::string_view flag, std::string_view text) {
  const auto bad = [&](std::string_view item) {
    return UsageError(
        fmt::format("--hdbench_{}: '{}' is not a matrix; accepted: ROWSxCOLS of fp32, each at least 2, "
                    "e.g. 4096x4096",
                    flag, item));
  };
  std::vector<MatrixShape> shapes;
  std::size_t start = 0;
  while (start <= text.size()) {
    const std::size_t comma = text.find(',', start);
    const std::string_view item = text.substr(start, comma == std::string_view::npos ? text.npos : comma - start);
    const std::size_t x = item.find('x');
    if (x == std::string_view::npos) throw bad(item);
    MatrixShape shape;
    const auto rows = std::from_chars(item.data(), item.data() + x, shape.rows);
    const auto cols = std::from_chars(item.data() + x + 1, item.data() + item.size(), shape.cols);
    if (rows.ec != std::errc() || rows.ptr != item.data() + x || cols.ec != std::errc() ||
        cols.ptr != item.data() + item.size() || shape.rows < 2 || shape.cols < 2 ||
        shape.rows > (std::size_t{1} << 20) || shape.cols > (std::size_t{1} << 20)) {
      throw bad(item);
    }
    shapes.push_back(shape);
    if (comma == std::string_view::npos) break;
    start = comma + 1;
  }
  return shapes;
}

void declare_strided_flags(FlagParser& flags, StridedOptions& o, const OptionLimits& limits) {
  flags.group("strided", "a slice of a row-major fp32 matrix moved to the GPU: 2D copy, host pack, mapped kernel");
  declare_axis<MatrixShape>(flags, o.matrices,
                            {.flag = "strided_matrices",
                             .value_help = "LIST",
                             .description = "matrices ROWSxCOLS of fp32 (default 1024x1024,4096x4096,8192x8192)",
                             .parse =
                                 [limits](auto flag, auto v) {
                                   std::vector<MatrixShape> shapes = parse_matrix_list(flag, v);
                                   std::vector<std::size_t> sizes;
                                   for (const MatrixShape& s : shapes)
                                     sizes.push_back(2 * s.bytes());  // the matrix and its packed slice
                                   check_sizes_fit(flag, sizes, limits);
                                   return shapes;
                                 },
                             .quick = std::vector<MatrixShape>{{1024, 1024}},
                             .standard = std::vector<MatrixShape>{{4096, 4096}},
                             .report_field = "strided_matrices",
                             .report =
                                 [](const std::vector<MatrixShape>& v) {
                                   nlohmann::json names = nlohmann::json::array();
                                   for (const MatrixShape& s : v) names.push_back(to_string(s));
                                   return names;
                                 }});
  declare_axis(flags, o.slices,
               enum_axis<SliceKind>("strided_slices", "every_other_row, column_block (default both)",
                                    slice_kind_from_string, all_slice_kinds()));
  declare_axis(
      flags, o.methods,
      enum_axis<StridedMethod>("strided_methods", "memcpy2d, pack_then_copy, mapped_kernel, contiguous (default all)",
                               strided_method_from_string, all_strided_methods()));
}

}  // namespace hdbench
