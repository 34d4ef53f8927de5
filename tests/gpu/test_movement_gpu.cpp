// GPU tests of the building blocks of the device_local, latency, managed, batch_copy and
// strided families: the gathers over mapped memory, the pointer chase, managed pages
// moved by prefetch and by demand. Each skips with the exact reason without a GPU.
#include <gtest/gtest.h>

#include <cstring>
#include <numeric>
#include <vector>

#include "batch_copy/batch_mix.hpp"
#include "core/cuda.hpp"
#include "core/host_memory.hpp"
#include "core/host_pattern.hpp"
#include "core/verify.hpp"
#include "gpu_test_support.hpp"
#include "latency/pointer_chain.hpp"
#include "managed/managed_memory.hpp"
#include "movement_kernels.hpp"
#include "strided/strided_layout.hpp"
#include "transfer_kernels.hpp"

namespace hdbench {
namespace {

constexpr std::uint64_t kSeed = 0x6d6f7665ULL;

void* device_alias(const HostBuffer& host) {
  void* alias = nullptr;
  HDBENCH_CUDA_CHECK(cudaHostGetDevicePointer(&alias, host.data(), 0));
  return alias;
}

TEST(GatherSegments, EveryTensorArrivesWholeWhateverItsSizeAndAlignment) {
  SKIP_WITHOUT_GPU();
  // Sizes that are not multiples of 16 B, and one source that starts off a 16 B boundary.
  const std::vector<std::size_t> sizes = {1, 15, 4096 + 3, 256, (1u << 20) + 9};
  const std::vector<std::size_t> offsets = packed_offsets(sizes, 256);
  const DeviceBuffer out(packed_bytes(sizes, offsets));
  fill_device_bytes(out.data(), 0, out.size());
  std::vector<HostBuffer> sources;
  std::vector<kernels::Segment> segments;
  for (std::size_t i = 0; i < sizes.size(); ++i) {
    sources.emplace_back(HostMemoryKind::pinned, sizes[i] + 1);
    const std::size_t shift = i == 2 ? 1 : 0;  // the unaligned one
    fill_pattern_host(static_cast<unsigned char*>(sources.back().data()) + shift, sizes[i], kSeed + i);
    segments.push_back({static_cast<unsigned char*>(device_alias(sources.back())) + shift,
                        static_cast<unsigned char*>(out.data()) + offsets[i], sizes[i]});
  }
  const DeviceBuffer table(sizeof(kernels::Segment) * segments.size());
  upload_bytes(table.data(), segments.data(), table.size());
  const Stream stream("test");
  // Before the gather the zeroed destination fails: the check can tell.
  EXPECT_FALSE(check_device_pattern(out.data(), sizes[4], kSeed + 4, stream.get()).empty());
  kernels::gather_segments(static_cast<const kernels::Segment*>(table.data()), static_cast<int>(segments.size()),
                           out.size(), stream.get());
  stream.synchronize();
  for (std::size_t i = 0; i < sizes.size(); ++i) {
    EXPECT_EQ(
        check_device_pattern(static_cast<unsigned char*>(out.data()) + offsets[i], sizes[i], kSeed + i, stream.get()),
        "")
        << "tensor " << i;
  }
}

TEST(GatherRows, TheKernelAndThe2DCopyPackTheSliceAsTheHostDoes) {
  SKIP_WITHOUT_GPU();
  for (const SliceKind kind : all_slice_kinds()) {
    const MatrixShape shape{257, 130};  // odd rows, a row not a multiple of 16 B
    const StridedSlice s = slice_of(shape, kind);
    const HostBuffer matrix(HostMemoryKind::pinned, shape.bytes());
    fill_pattern_host(matrix.data(), shape.bytes(), kSeed);
    std::vector<unsigned char> expected(s.bytes()), got(s.bytes());
    pack_slice(matrix.data(), s, expected.data());
    const DeviceBuffer out(s.bytes());
    const Stream stream("test");
    fill_device_bytes(out.data(), 0, s.bytes());
    kernels::gather_rows(device_alias(matrix), s.pitch, out.data(), s.row_bytes, s.rows, stream.get());
    stream.synchronize();
    HDBENCH_CUDA_CHECK(cudaMemcpy(got.data(), out.data(), s.bytes(), cudaMemcpyDeviceToHost));
    EXPECT_EQ(got, expected) << to_string(kind) << " by the kernel";
    fill_device_bytes(out.data(), 0, s.bytes());
    HDBENCH_CUDA_CHECK(cudaMemcpy2DAsync(out.data(), s.row_bytes, matrix.data(), s.pitch, s.row_bytes, s.rows,
                                         cudaMemcpyHostToDevice, stream.get()));
    stream.synchronize();
    HDBENCH_CUDA_CHECK(cudaMemcpy(got.data(), out.data(), s.bytes(), cudaMemcpyDeviceToHost));
    EXPECT_EQ(got, expected) << to_string(kind) << " by cudaMemcpy2DAsync";
  }
}

TEST(PointerChase, StopsWhereTheHostsWalkStopsInDeviceAndMappedMemory) {
  SKIP_WITHOUT_GPU();
  const std::vector<std::uint64_t> chain = make_pointer_chain(1000, 8, kSeed);
  const std::size_t bytes = chain.size() * sizeof(std::uint64_t);
  const DeviceBuffer on_device(bytes), last(sizeof(std::uint64_t));
  upload_bytes(on_device.data(), chain.data(), bytes);
  const HostBuffer on_host(HostMemoryKind::pinned, bytes);
  std::memcpy(on_host.data(), chain.data(), bytes);
  const Stream stream("test");
  for (const std::uint64_t steps : {std::uint64_t{1}, std::uint64_t{999}, std::uint64_t{2500}}) {
    for (const void* where :
         {static_cast<const void*>(on_device.data()), static_cast<const void*>(device_alias(on_host))}) {
      kernels::pointer_chase(static_cast<const std::uint64_t*>(where), steps, static_cast<std::uint64_t*>(last.data()),
                             stream.get());
      stream.synchronize();
      std::uint64_t stopped = 0;
      HDBENCH_CUDA_CHECK(cudaMemcpy(&stopped, last.data(), sizeof stopped, cudaMemcpyDeviceToHost));
      EXPECT_EQ(stopped, chase_end(chain, steps)) << steps << " steps";
    }
  }
}

TEST(ManagedBuffer, PagesMovedByPrefetchAndByDemandHoldWhatWasWritten) {
  SKIP_WITHOUT_GPU();
  if (const std::string why = managed_unsupported_reason(0); !why.empty()) GTEST_SKIP() << why;
  const std::size_t bytes = (std::size_t{4} << 20) + 12;
  const ManagedBuffer buffer(bytes);
  const Stream stream("test");
  DeviceBuffer mismatches(sizeof(unsigned long long));
  for (const ManagedVariant variant : all_managed_variants()) {
    buffer.advise(variant, 0);
    fill_pattern_host(buffer.data(), bytes, kSeed);  // written by the host
    if (variant == ManagedVariant::prefetch) buffer.prefetch(0, stream.get());
    fill_device_bytes(mismatches.data(), 0, sizeof(unsigned long long));
    kernels::count_pattern_mismatches(buffer.data(), bytes, kSeed, static_cast<unsigned long long*>(mismatches.data()),
                                      stream.get());
    stream.synchronize();
    unsigned long long wrong = 0;
    HDBENCH_CUDA_CHECK(cudaMemcpy(&wrong, mismatches.data(), sizeof wrong, cudaMemcpyDeviceToHost));
    EXPECT_EQ(wrong, 0u) << to_string(variant);
  }
  kernels::fill_pattern(buffer.data(), bytes, kSeed + 1, stream.get());  // written by the GPU
  buffer.prefetch(-1, stream.get());
  stream.synchronize();
  EXPECT_FALSE(find_pattern_mismatch(buffer.data(), bytes, kSeed + 1).has_value());
}

}  // namespace
}  // namespace hdbench
