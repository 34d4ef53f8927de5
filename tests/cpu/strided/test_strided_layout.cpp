#include <gtest/gtest.h>

#include <numeric>
#include <vector>

#include "core/option_values.hpp"
#include "strided/strided_layout.hpp"
#include "strided/strided_options.hpp"

namespace hdbench {
namespace {

TEST(StridedLayout, EveryOtherRowIsWholeRowsTwoRowsApart) {
  const StridedSlice s = slice_of({5, 4}, SliceKind::every_other_row);
  EXPECT_EQ(s.rows, 3u);  // rows 0, 2, 4
  EXPECT_EQ(s.row_bytes, 16u);
  EXPECT_EQ(s.pitch, 32u);
  EXPECT_EQ(s.bytes(), 48u);
}

TEST(StridedLayout, AColumnBlockIsHalfOfEveryRow) {
  const StridedSlice s = slice_of({3, 6}, SliceKind::column_block);
  EXPECT_EQ(s.rows, 3u);
  EXPECT_EQ(s.row_bytes, 12u);  // 3 of 6 floats
  EXPECT_EQ(s.pitch, 24u);
  EXPECT_THROW(slice_of({1, 6}, SliceKind::column_block), std::invalid_argument);
}

TEST(StridedLayout, PackingTakesExactlyTheSlicesElements) {
  const MatrixShape shape{4, 4};
  std::vector<float> matrix(16);
  std::iota(matrix.begin(), matrix.end(), 0.0f);
  const StridedSlice rows = slice_of(shape, SliceKind::every_other_row);
  std::vector<float> packed(rows.bytes() / sizeof(float));
  pack_slice(matrix.data(), rows, packed.data());
  EXPECT_EQ(packed, (std::vector<float>{0, 1, 2, 3, 8, 9, 10, 11}));
  const StridedSlice block = slice_of(shape, SliceKind::column_block);
  packed.assign(block.bytes() / sizeof(float), -1.0f);
  pack_slice(matrix.data(), block, packed.data());
  EXPECT_EQ(packed, (std::vector<float>{0, 1, 4, 5, 8, 9, 12, 13}));
}

TEST(StridedOptions, MatricesParseAsRowsByColumns) {
  EXPECT_EQ(parse_matrix_list("strided_matrices", "4096x4096,2x8"), (std::vector<MatrixShape>{{4096, 4096}, {2, 8}}));
  EXPECT_EQ(to_string(MatrixShape{1024, 512}), "1024x512");
  for (const char* bad : {"", "4096", "x4096", "4096x", "1x4", "4x1", "4x4,", "4 x 4", "-4x4", "4x4x4", "99999999x2"}) {
    EXPECT_THROW(parse_matrix_list("strided_matrices", bad), UsageError) << bad;
  }
}

}  // namespace
}  // namespace hdbench
