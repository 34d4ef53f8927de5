#include "mlp/narrow_gemm.hpp"

#include <algorithm>
#include <cstdint>
#include <stdexcept>

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#define HDBENCH_NARROW_GEMM 1
#define HDBENCH_AVX512 __attribute__((target("avx512f")))
#define HDBENCH_AVX2 __attribute__((target("avx2,fma")))
#endif

namespace hdbench {

namespace {

void pack_narrow_weights_scalar(const float* w, int outputs, int ldw, int col_begin, int col_end, float* packed) {
  for (int j = col_begin; j < col_end; ++j) {
    float* row = packed + static_cast<std::size_t>(j) * kNarrowPackedWidth;
    for (int i = 0; i < outputs; ++i) row[i] = w[static_cast<std::size_t>(i) * ldw + j];
    std::fill(row + outputs, row + kNarrowPackedWidth, 0.0f);
  }
}

}  // namespace

#if HDBENCH_NARROW_GEMM

namespace {

NarrowGemmIsa detect_isa() noexcept {
  if (__builtin_cpu_supports("avx512f")) return NarrowGemmIsa::avx512;
  if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) return NarrowGemmIsa::avx2;
  return NarrowGemmIsa::none;
}

}  // namespace

NarrowGemmIsa narrow_gemm_isa() noexcept {
  static const NarrowGemmIsa isa = detect_isa();
  return isa;
}

namespace {

// Columns of the reduction (k) a forward tile takes at a time: the packed weights'
// block (256 × 128 B = 32 KiB) stays in L1 across the row tiles.
constexpr int kForwardBlockK = 256;
// Batch rows a weight-gradient tile takes at a time: the block of X it reads (128 rows ×
// 192 B) stays in L1 across the output-row tiles.
constexpr int kGradientBlockRows = 128;

__mmask16 lanes(int count) {
  return count >= 16 ? static_cast<__mmask16>(0xFFFF) : static_cast<__mmask16>((1u << std::max(count, 0)) - 1);
}

// R rows of C = A · Wᵀ over columns [k0, k1) of the reduction, 32 outputs in two
// vectors: per k, two loads of the packed row and R broadcasts of A, 2R FMAs. The first
// block writes C, the others add to it.
template <int R>
HDBENCH_AVX512 void forward_tile(const float* a, std::size_t lda, const float* packed, int k0, int k1, float* c,
                                 std::size_t ldc, __mmask16 low, __mmask16 high) {
  __m512 acc0[R];
  __m512 acc1[R];
  if (k0 == 0) {
#pragma GCC unroll 12
    for (int r = 0; r < R; ++r) acc0[r] = acc1[r] = _mm512_setzero_ps();
  } else {
#pragma GCC unroll 12
    for (int r = 0; r < R; ++r) {
      acc0[r] = _mm512_maskz_loadu_ps(low, c + r * ldc);
      acc1[r] = _mm512_maskz_loadu_ps(high, c + r * ldc + 16);
    }
  }
  for (int p = k0; p < k1; ++p) {
    const __m512 w0 = _mm512_loadu_ps(packed + static_cast<std::size_t>(p) * kNarrowPackedWidth);
    const __m512 w1 = _mm512_loadu_ps(packed + static_cast<std::size_t>(p) * kNarrowPackedWidth + 16);
#pragma GCC unroll 12
    for (int r = 0; r < R; ++r) {
      const __m512 x = _mm512_set1_ps(a[r * lda + p]);
      acc0[r] = _mm512_fmadd_ps(x, w0, acc0[r]);
      acc1[r] = _mm512_fmadd_ps(x, w1, acc1[r]);
    }
  }
#pragma GCC unroll 12
  for (int r = 0; r < R; ++r) {
    _mm512_mask_storeu_ps(c + r * ldc, low, acc0[r]);
    _mm512_mask_storeu_ps(c + r * ldc + 16, high, acc1[r]);
  }
}

// MR output rows × NV vectors of columns of C = Gᵀ · X over batch rows [r0, r1): per
// batch row, NV loads of X and MR broadcasts of G, MR·NV FMAs. `last` masks the last
// vector's columns. The first block writes C, the others add to it.
template <int MR, int NV>
HDBENCH_AVX512 void gradient_tile(const float* g, std::size_t ldg, const float* x, std::size_t ldx, int r0, int r1,
                                  float* c, std::size_t ldc, __mmask16 last) {
  __m512 acc[MR][NV];
#pragma GCC unroll 8
  for (int i = 0; i < MR; ++i) {
#pragma GCC unroll 3
    for (int v = 0; v < NV; ++v) {
      acc[i][v] =
          r0 == 0 ? _mm512_setzero_ps()
                  : _mm512_maskz_loadu_ps(v == NV - 1 ? last : static_cast<__mmask16>(0xFFFF), c + i * ldc + 16 * v);
    }
  }
  for (int r = r0; r < r1; ++r) {
    const float* xr = x + static_cast<std::size_t>(r) * ldx;
    const float* gr = g + static_cast<std::size_t>(r) * ldg;
    __m512 xv[NV];
#pragma GCC unroll 3
    for (int v = 0; v < NV; ++v)
      xv[v] = _mm512_maskz_loadu_ps(v == NV - 1 ? last : static_cast<__mmask16>(0xFFFF), xr + 16 * v);
#pragma GCC unroll 8
    for (int i = 0; i < MR; ++i) {
      const __m512 gi = _mm512_set1_ps(gr[i]);
#pragma GCC unroll 3
      for (int v = 0; v < NV; ++v) acc[i][v] = _mm512_fmadd_ps(gi, xv[v], acc[i][v]);
    }
  }
#pragma GCC unroll 8
  for (int i = 0; i < MR; ++i) {
#pragma GCC unroll 3
    for (int v = 0; v < NV; ++v)
      _mm512_mask_storeu_ps(c + i * ldc + 16 * v, v == NV - 1 ? last : static_cast<__mmask16>(0xFFFF), acc[i][v]);
  }
}

// The rows [i0, i0 + rows) of a gradient column block, in tiles of 8, 4, 2 and 1 rows.
template <int NV>
HDBENCH_AVX512 void gradient_rows(int i0, int rows, const float* g, std::size_t ldg, const float* x, std::size_t ldx,
                                  int r0, int r1, float* c, std::size_t ldc, __mmask16 last) {
  int i = i0;
  const int end = i0 + rows;
  for (; i + 8 <= end; i += 8) gradient_tile<8, NV>(g + i, ldg, x, ldx, r0, r1, c + i * ldc, ldc, last);
  if (i + 4 <= end) {
    gradient_tile<4, NV>(g + i, ldg, x, ldx, r0, r1, c + i * ldc, ldc, last);
    i += 4;
  }
  if (i + 2 <= end) {
    gradient_tile<2, NV>(g + i, ldg, x, ldx, r0, r1, c + i * ldc, ldc, last);
    i += 2;
  }
  if (i < end) gradient_tile<1, NV>(g + i, ldg, x, ldx, r0, r1, c + i * ldc, ldc, last);
}

// GCC 12's unpack intrinsics start from an undefined vector it then warns about.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
// Transposes 16 rows × `cols` (<= 16) columns of W, rows [i0, i0 + 16) with those at or
// past `outputs` read as zeros, into the 16-float halves at `out` of `cols` packed rows.
HDBENCH_AVX512 void transpose_16(const float* w, std::size_t ldw, int i0, int outputs, int cols, float* out) {
  const __mmask16 columns = lanes(cols);
  __m512 r[16];
  for (int i = 0; i < 16; ++i)
    r[i] = i0 + i < outputs ? _mm512_maskz_loadu_ps(columns, w + static_cast<std::size_t>(i0 + i) * ldw)
                            : _mm512_setzero_ps();
  // Pairs, then quads within 128-bit lanes, then the lanes themselves.
  __m512 t[16];
  for (int i = 0; i < 8; ++i) {
    t[2 * i] = _mm512_unpacklo_ps(r[2 * i], r[2 * i + 1]);
    t[2 * i + 1] = _mm512_unpackhi_ps(r[2 * i], r[2 * i + 1]);
  }
  __m512 u[16];  // u[4q + c]: rows 4q..4q+3 of columns c, c+4, c+8, c+12 (one per lane)
  for (int q = 0; q < 4; ++q) {
    const __m512d a0 = _mm512_castps_pd(t[4 * q]), a1 = _mm512_castps_pd(t[4 * q + 1]);
    const __m512d a2 = _mm512_castps_pd(t[4 * q + 2]), a3 = _mm512_castps_pd(t[4 * q + 3]);
    u[4 * q] = _mm512_castpd_ps(_mm512_unpacklo_pd(a0, a2));
    u[4 * q + 1] = _mm512_castpd_ps(_mm512_unpackhi_pd(a0, a2));
    u[4 * q + 2] = _mm512_castpd_ps(_mm512_unpacklo_pd(a1, a3));
    u[4 * q + 3] = _mm512_castpd_ps(_mm512_unpackhi_pd(a1, a3));
  }
  for (int c = 0; c < 4; ++c) {
    const __m512 even01 = _mm512_shuffle_f32x4(u[c], u[4 + c], 0x88);  // lanes 0, 2 of rows 0-3, 4-7
    const __m512 odd01 = _mm512_shuffle_f32x4(u[c], u[4 + c], 0xDD);   // lanes 1, 3
    const __m512 even23 = _mm512_shuffle_f32x4(u[8 + c], u[12 + c], 0x88);
    const __m512 odd23 = _mm512_shuffle_f32x4(u[8 + c], u[12 + c], 0xDD);
    const __m512 column[4] = {_mm512_shuffle_f32x4(even01, even23, 0x88),  // column c
                              _mm512_shuffle_f32x4(odd01, odd23, 0x88),    // column c + 4
                              _mm512_shuffle_f32x4(even01, even23, 0xDD),  // column c + 8
                              _mm512_shuffle_f32x4(odd01, odd23, 0xDD)};   // column c + 12
    for (int q = 0; q < 4; ++q) {
      const int j = c + 4 * q;
      if (j < cols) _mm512_storeu_ps(out + static_cast<std::size_t>(j) * kNarrowPackedWidth, column[q]);
    }
  }
}

#pragma GCC diagnostic pop

HDBENCH_AVX512 void pack_narrow_weights_avx512(const float* w, int outputs, int ldw, int col_begin, int col_end,
                                               float* packed) {
  const auto sw = static_cast<std::size_t>(ldw);
  for (int j = col_begin; j < col_end; j += 16) {
    const int cols = std::min(16, col_end - j);
    float* out = packed + static_cast<std::size_t>(j) * kNarrowPackedWidth;
    transpose_16(w + j, sw, 0, outputs, cols, out);
    transpose_16(w + j, sw, 16, outputs, cols, out + 16);
  }
}

HDBENCH_AVX512 void narrow_forward_avx512(int m, int outputs, int k, const float* a, std::size_t sa,
                                          const float* packed, float* c, std::size_t sc) {
  const __mmask16 low = lanes(outputs);
  const __mmask16 high = lanes(outputs - 16);
  for (int k0 = 0; k0 < k; k0 += kForwardBlockK) {
    const int k1 = std::min(k, k0 + kForwardBlockK);
    int r = 0;
    for (; r + 12 <= m; r += 12) forward_tile<12>(a + r * sa, sa, packed, k0, k1, c + r * sc, sc, low, high);
    if (r + 8 <= m) {
      forward_tile<8>(a + r * sa, sa, packed, k0, k1, c + r * sc, sc, low, high);
      r += 8;
    }
    if (r + 4 <= m) {
      forward_tile<4>(a + r * sa, sa, packed, k0, k1, c + r * sc, sc, low, high);
      r += 4;
    }
    for (; r < m; ++r) forward_tile<1>(a + r * sa, sa, packed, k0, k1, c + r * sc, sc, low, high);
  }
}

HDBENCH_AVX512 void narrow_weight_gradient_avx512(int outputs, int n, int k, const float* g, std::size_t sg,
                                                  const float* x, std::size_t sx, float* c, std::size_t sc) {
  constexpr int kWide = 48;  // three vectors of columns
  for (int r0 = 0; r0 < k; r0 += kGradientBlockRows) {
    const int r1 = std::min(k, r0 + kGradientBlockRows);
    int j = 0;
    for (; j + kWide <= n; j += kWide)
      gradient_rows<3>(0, outputs, g, sg, x + j, sx, r0, r1, c + j, sc, static_cast<__mmask16>(0xFFFF));
    for (; j < n; j += 16) gradient_rows<1>(0, outputs, g, sg, x + j, sx, r0, r1, c + j, sc, lanes(n - j));
  }
}

// AVX2 with FMA: sixteen 8-float registers. A forward tile is R = 6 rows × 16 outputs (two
// vectors): 12 accumulators, the packed row's two vectors and a broadcast; 32 outputs
// take two such tiles over the same rows, whose block of A stays in L1 between them. Per
// k: 2 loads, 6 broadcasts, 12 FMAs, so the two FMA pipes bound it, and 12 independent
// sums cover the FMA's latency (4-5 cycles) on both pipes.
// A tile's block of the reduction: its A (6 rows × 512 B) and packed weights (128 × 128 B
// = 16 KiB) stay in L1 while both 16-output halves use them.
constexpr int kForwardBlockKAvx2 = 128;
// Batch rows a weight-gradient block takes: its X (64 rows × 64 B) and G (64 × 128 B)
// stay in L1 with room to spare (128 rows measured 5-20% slower on a Zen 3 core).
constexpr int kGradientBlockRowsAvx2 = 64;

// All lanes below `count` set (a maskload/maskstore mask).
HDBENCH_AVX2 __m256i lanes8(int count) {
  return _mm256_cmpgt_epi32(_mm256_set1_epi32(count), _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
}

// Eight floats, the lanes `mask` keeps only when `Masked` (AMD's masked moves are
// microcoded and slow, so full vectors take plain ones).
template <bool Masked>
HDBENCH_AVX2 __m256 load8(const float* p, __m256i mask) {
  if constexpr (Masked) {
    return _mm256_maskload_ps(p, mask);
  } else {
    return _mm256_loadu_ps(p);
  }
}
template <bool Masked>
HDBENCH_AVX2 void store8(float* p, __m256i mask, __m256 v) {
  if constexpr (Masked) {
    _mm256_maskstore_ps(p, mask, v);
  } else {
    _mm256_storeu_ps(p, v);
  }
}

// R rows × 16 outputs; `Masked` when the outputs left are fewer (`low`, `high`: the two
// vectors' lanes).
template <int R, bool Masked>
HDBENCH_AVX2 void forward_tile_avx2(const float* a, std::size_t lda, const float* packed, int k0, int k1, float* c,
                                    std::size_t ldc, __m256i low, __m256i high) {
  __m256 acc0[R];
  __m256 acc1[R];
  if (k0 == 0) {
#pragma GCC unroll 6
    for (int r = 0; r < R; ++r) acc0[r] = acc1[r] = _mm256_setzero_ps();
  } else {
#pragma GCC unroll 6
    for (int r = 0; r < R; ++r) {
      acc0[r] = load8<Masked>(c + r * ldc, low);
      acc1[r] = load8<Masked>(c + r * ldc + 8, high);
    }
  }
  for (int p = k0; p < k1; ++p) {
    const __m256 w0 = _mm256_loadu_ps(packed + static_cast<std::size_t>(p) * kNarrowPackedWidth);
    const __m256 w1 = _mm256_loadu_ps(packed + static_cast<std::size_t>(p) * kNarrowPackedWidth + 8);
#pragma GCC unroll 6
    for (int r = 0; r < R; ++r) {
      const __m256 x = _mm256_broadcast_ss(a + r * lda + p);
      acc0[r] = _mm256_fmadd_ps(x, w0, acc0[r]);
      acc1[r] = _mm256_fmadd_ps(x, w1, acc1[r]);
    }
  }
#pragma GCC unroll 6
  for (int r = 0; r < R; ++r) {
    store8<Masked>(c + r * ldc, low, acc0[r]);
    store8<Masked>(c + r * ldc + 8, high, acc1[r]);
  }
}

// The R rows at `a`/`c`: every 16-output half of them, a block of the reduction at a
// time. The rows are finished one tile after another (not each block over all rows), so
// each row of A streams in whole, as the hardware's prefetchers expect: a fresh batch
// (from memory, as in a training step) ran 5-10% faster this way on a Zen 3 core.
template <int R>
HDBENCH_AVX2 void forward_rows_avx2(int outputs, int k, const float* a, std::size_t lda, const float* packed, float* c,
                                    std::size_t ldc) {
  for (int k0 = 0; k0 < k; k0 += kForwardBlockKAvx2) {
    const int k1 = std::min(k, k0 + kForwardBlockKAvx2);
    for (int half = 0; 16 * half < outputs; ++half) {
      const int left = outputs - 16 * half;
      if (left >= 16) {
        forward_tile_avx2<R, false>(a, lda, packed + 16 * half, k0, k1, c + 16 * half, ldc, __m256i{}, __m256i{});
      } else {
        forward_tile_avx2<R, true>(a, lda, packed + 16 * half, k0, k1, c + 16 * half, ldc, lanes8(left),
                                   lanes8(left - 8));
      }
    }
  }
}

HDBENCH_AVX2 void narrow_forward_avx2(int m, int outputs, int k, const float* a, std::size_t sa, const float* packed,
                                      float* c, std::size_t sc) {
  int r = 0;
  for (; r + 6 <= m; r += 6) forward_rows_avx2<6>(outputs, k, a + r * sa, sa, packed, c + r * sc, sc);
  if (r + 4 <= m) {
    forward_rows_avx2<4>(outputs, k, a + r * sa, sa, packed, c + r * sc, sc);
    r += 4;
  }
  if (r + 2 <= m) {
    forward_rows_avx2<2>(outputs, k, a + r * sa, sa, packed, c + r * sc, sc);
    r += 2;
  }
  if (r < m) forward_rows_avx2<1>(outputs, k, a + r * sa, sa, packed, c + r * sc, sc);
}

// MR output rows × NV 8-column vectors of C = Gᵀ · X over batch rows [r0, r1), as
// gradient_tile: per batch row NV loads of X, MR broadcasts of G, MR·NV FMAs (6 × 2: 12
// sums, 8 loads). `last` masks the last vector's columns when `Masked`.
template <int MR, int NV, bool Masked>
HDBENCH_AVX2 void gradient_tile_avx2(const float* g, std::size_t ldg, const float* x, std::size_t ldx, int r0, int r1,
                                     float* c, std::size_t ldc, __m256i last) {
  __m256 acc[MR][NV];
#pragma GCC unroll 6
  for (int i = 0; i < MR; ++i) {
#pragma GCC unroll 2
    for (int v = 0; v < NV; ++v)
      acc[i][v] =
          r0 == 0 ? _mm256_setzero_ps()
                  : (v == NV - 1 ? load8<Masked>(c + i * ldc + 8 * v, last) : load8<false>(c + i * ldc + 8 * v, last));
  }
  for (int r = r0; r < r1; ++r) {
    const float* xr = x + static_cast<std::size_t>(r) * ldx;
    const float* gr = g + static_cast<std::size_t>(r) * ldg;
    // Two tiles ahead along this row of X: a tile reads one line of each of its rows,
    // rows a batch row apart, which the hardware's prefetchers do not follow. On a fresh
    // batch (from memory, as in a training step) this ran ~17% faster on a Zen 3 core; one
    // tile ahead ran slower than none.
    // (The builtin, not _mm_prefetch: that is a function taking its hint as an argument in
    // unoptimised builds, where GCC refuses a hint that is not a constant.)
    __builtin_prefetch(xr + 8 * NV + 16, /*read*/ 0, /*keep in every cache level*/ 3);
    __m256 xv[NV];
#pragma GCC unroll 2
    for (int v = 0; v < NV; ++v) xv[v] = v == NV - 1 ? load8<Masked>(xr + 8 * v, last) : load8<false>(xr + 8 * v, last);
#pragma GCC unroll 6
    for (int i = 0; i < MR; ++i) {
      const __m256 gi = _mm256_broadcast_ss(gr + i);
#pragma GCC unroll 2
      for (int v = 0; v < NV; ++v) acc[i][v] = _mm256_fmadd_ps(gi, xv[v], acc[i][v]);
    }
  }
#pragma GCC unroll 6
  for (int i = 0; i < MR; ++i) {
#pragma GCC unroll 2
    for (int v = 0; v < NV; ++v) {
      if (v == NV - 1) {
        store8<Masked>(c + i * ldc + 8 * v, last, acc[i][v]);
      } else {
        store8<false>(c + i * ldc + 8 * v, last, acc[i][v]);
      }
    }
  }
}

// All `outputs` rows of a gradient column block, in tiles of 6, 4, 2 and 1 rows; 8 rows
// left go as two tiles of 4 (32 outputs: 6, 6, 6, 6, 4, 4), since a tile of 2 rows has
// too few sums to cover the FMA's latency.
template <int NV, bool Masked>
HDBENCH_AVX2 void gradient_rows_avx2(int outputs, const float* g, std::size_t ldg, const float* x, std::size_t ldx,
                                     int r0, int r1, float* c, std::size_t ldc, __m256i last) {
  int i = 0;
  for (; i + 6 <= outputs && outputs - i != 8; i += 6)
    gradient_tile_avx2<6, NV, Masked>(g + i, ldg, x, ldx, r0, r1, c + i * ldc, ldc, last);
  for (; i + 4 <= outputs; i += 4)
    gradient_tile_avx2<4, NV, Masked>(g + i, ldg, x, ldx, r0, r1, c + i * ldc, ldc, last);
  if (i + 2 <= outputs) {
    gradient_tile_avx2<2, NV, Masked>(g + i, ldg, x, ldx, r0, r1, c + i * ldc, ldc, last);
    i += 2;
  }
  if (i < outputs) gradient_tile_avx2<1, NV, Masked>(g + i, ldg, x, ldx, r0, r1, c + i * ldc, ldc, last);
}

HDBENCH_AVX2 void narrow_weight_gradient_avx2(int outputs, int n, int k, const float* g, std::size_t sg, const float* x,
                                              std::size_t sx, float* c, std::size_t sc) {
  constexpr int kWide = 16;  // two vectors of columns
  const __m256i all = _mm256_set1_epi32(-1);
  for (int r0 = 0; r0 < k; r0 += kGradientBlockRowsAvx2) {
    const int r1 = std::min(k, r0 + kGradientBlockRowsAvx2);
    int j = 0;
    for (; j + kWide <= n; j += kWide) gradient_rows_avx2<2, false>(outputs, g, sg, x + j, sx, r0, r1, c + j, sc, all);
    for (; j + 8 <= n; j += 8) gradient_rows_avx2<1, false>(outputs, g, sg, x + j, sx, r0, r1, c + j, sc, all);
    if (j < n) gradient_rows_avx2<1, true>(outputs, g, sg, x + j, sx, r0, r1, c + j, sc, lanes8(n - j));
  }
}

}  // namespace

bool narrow_gemm_supports(NarrowGemmIsa isa) noexcept {
  return isa != NarrowGemmIsa::none && static_cast<int>(isa) <= static_cast<int>(narrow_gemm_isa());
}

void pack_narrow_weights(const float* w, int outputs, int ldw, int col_begin, int col_end, float* packed) {
  if (narrow_gemm_isa() == NarrowGemmIsa::avx512) {
    pack_narrow_weights_avx512(w, outputs, ldw, col_begin, col_end, packed);
  } else {
    pack_narrow_weights_scalar(w, outputs, ldw, col_begin, col_end, packed);
  }
}

void narrow_forward(int m, int outputs, int k, const float* a, int lda, const float* packed, float* c, int ldc,
                    NarrowGemmIsa isa) {
  if (outputs < 1 || outputs > kNarrowMaxOutputs) throw std::invalid_argument("narrow_forward: 1..32 outputs");
  if (!narrow_gemm_supports(isa)) throw std::invalid_argument("narrow_forward: this CPU does not run those kernels");
  const auto sa = static_cast<std::size_t>(lda);
  const auto sc = static_cast<std::size_t>(ldc);
  if (k == 0) {
    for (int r = 0; r < m; ++r) std::fill(c + r * sc, c + r * sc + outputs, 0.0f);
  } else if (isa == NarrowGemmIsa::avx512) {
    narrow_forward_avx512(m, outputs, k, a, sa, packed, c, sc);
  } else {
    narrow_forward_avx2(m, outputs, k, a, sa, packed, c, sc);
  }
}

void narrow_weight_gradient(int outputs, int n, int k, const float* g, int ldg, const float* x, int ldx, float* c,
                            int ldc, NarrowGemmIsa isa) {
  if (outputs < 1 || outputs > kNarrowMaxOutputs) throw std::invalid_argument("narrow_weight_gradient: 1..32 outputs");
  if (!narrow_gemm_supports(isa))
    throw std::invalid_argument("narrow_weight_gradient: this CPU does not run those kernels");
  const auto sg = static_cast<std::size_t>(ldg);
  const auto sx = static_cast<std::size_t>(ldx);
  const auto sc = static_cast<std::size_t>(ldc);
  if (k == 0) {
    for (int i = 0; i < outputs; ++i) std::fill(c + i * sc, c + i * sc + n, 0.0f);
  } else if (isa == NarrowGemmIsa::avx512) {
    narrow_weight_gradient_avx512(outputs, n, k, g, sg, x, sx, c, sc);
  } else {
    narrow_weight_gradient_avx2(outputs, n, k, g, sg, x, sx, c, sc);
  }
}

#else  // no x86 kernels on this compiler or architecture: the step keeps OpenBLAS

NarrowGemmIsa narrow_gemm_isa() noexcept { return NarrowGemmIsa::none; }

bool narrow_gemm_supports(NarrowGemmIsa) noexcept { return false; }

void pack_narrow_weights(const float* w, int outputs, int ldw, int col_begin, int col_end, float* packed) {
  pack_narrow_weights_scalar(w, outputs, ldw, col_begin, col_end, packed);
}

void narrow_forward(int, int, int, const float*, int, const float*, float*, int, NarrowGemmIsa) {
  throw std::logic_error("narrow_forward: not built for this architecture");
}

void narrow_weight_gradient(int, int, int, const float*, int, const float*, int, float*, int, NarrowGemmIsa) {
  throw std::logic_error("narrow_weight_gradient: not built for this architecture");
}

#endif

const char* to_string(NarrowGemmIsa isa) noexcept {
  switch (isa) {
    case NarrowGemmIsa::avx512:
      return "avx512";
    case NarrowGemmIsa::avx2:
      return "avx2";
    case NarrowGemmIsa::none:
      break;
  }
  return "none";
}

}  // namespace hdbench
