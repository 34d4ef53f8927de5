#include "strided/strided_layout.hpp"

#include <fmt/format.h>

#include <cstring>
#include <stdexcept>

#include "core/enum_names.hpp"

namespace hdbench {

const char* to_string(SliceKind kind) noexcept {
  switch (kind) {
    case SliceKind::every_other_row:
      return "every_other_row";
    case SliceKind::column_block:
      return "column_block";
  }
  return "unknown";
}

std::vector<SliceKind> all_slice_kinds() { return {SliceKind::every_other_row, SliceKind::column_block}; }

std::optional<SliceKind> slice_kind_from_string(std::string_view name) {
  return enum_from_name(name, all_slice_kinds());
}

std::string to_string(const MatrixShape& shape) { return fmt::format("{}x{}", shape.rows, shape.cols); }

StridedSlice slice_of(const MatrixShape& shape, SliceKind kind) {
  if (shape.rows < 2 || shape.cols < 2) {
    throw std::invalid_argument(fmt::format("a {} matrix is too small to slice (2x2 at least)", to_string(shape)));
  }
  const std::size_t row = shape.cols * sizeof(float);
  switch (kind) {
    case SliceKind::every_other_row:
      return {(shape.rows + 1) / 2, row, 2 * row};
    case SliceKind::column_block:
      return {shape.rows, (shape.cols / 2) * sizeof(float), row};
  }
  throw std::invalid_argument("unknown slice kind");
}

void pack_slice(const void* matrix, const StridedSlice& slice, void* out) {
  const auto* in = static_cast<const unsigned char*>(matrix);
  auto* to = static_cast<unsigned char*>(out);
  for (std::size_t r = 0; r < slice.rows; ++r)
    std::memcpy(to + r * slice.row_bytes, in + r * slice.pitch, slice.row_bytes);
}

}  // namespace hdbench
