// A slice of a row-major matrix of fp32 as rows of bytes a pitch apart: what
// cudaMemcpy2DAsync, a host pack and a gathering kernel all take. Host-side, tested here.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace hdbench {

enum class SliceKind {
  every_other_row,  // rows 0, 2, 4, ...: whole rows, twice the row apart
  column_block,     // the first half of the columns of every row
};

const char* to_string(SliceKind kind) noexcept;
std::optional<SliceKind> slice_kind_from_string(std::string_view name);
std::vector<SliceKind> all_slice_kinds();

struct MatrixShape {
  std::size_t rows = 0, cols = 0;  // fp32 elements
  std::size_t bytes() const noexcept { return rows * cols * sizeof(float); }
  bool operator==(const MatrixShape&) const = default;
};
std::string to_string(const MatrixShape& shape);  // "4096x4096"

struct StridedSlice {
  std::size_t rows = 0;       // how many pieces
  std::size_t row_bytes = 0;  // bytes per piece
  std::size_t pitch = 0;      // bytes from one piece's start to the next in the matrix
  std::size_t bytes() const noexcept { return rows * row_bytes; }
};

// The slice of `shape`; throws std::invalid_argument for a matrix too small to slice
// (fewer than 2 rows or 2 columns).
StridedSlice slice_of(const MatrixShape& shape, SliceKind kind);

// The slice of `matrix` packed: piece i at i * row_bytes of `out` (slice.bytes() long).
void pack_slice(const void* matrix, const StridedSlice& slice, void* out);

}  // namespace hdbench
