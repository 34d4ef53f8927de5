// The strided family: what does a strided slice cost to move? A slice of a row-major
// fp32 matrix in pinned memory (every other row, or the first half of the columns)
// moved to the GPU packed: by cudaMemcpy2DAsync, by a host pack (what tensor.contiguous()
// does) into pinned memory and one copy, and by a kernel reading the rows over mapped
// memory; beside one copy of the same bytes already contiguous. Each sample is the host's
// time from the first call to the stream's end; the result is compared with the host's
// own packing after timing. Has not run on a GPU yet.
#include <fmt/format.h>

#include <cstring>
#include <vector>

#include "core/case_grid.hpp"
#include "core/cuda.hpp"
#include "core/family.hpp"
#include "core/host_memory.hpp"
#include "core/host_pattern.hpp"
#include "core/measure.hpp"
#include "core/nvtx.hpp"
#include "core/report.hpp"
#include "core/stopping_rule.hpp"
#include "core/timing.hpp"
#include "movement_kernels.hpp"
#include "strided/strided_description.hpp"
#include "strided/strided_layout.hpp"
#include "strided/strided_options.hpp"

namespace hdbench {
namespace {

struct StridedCase {
  MatrixShape matrix;
  SliceKind slice = SliceKind::every_other_row;
  StridedMethod method = StridedMethod::memcpy2d;
  std::string name;  // the case's, from its axes (for_each_case)
};

void run_strided(benchmark::State& state, const StoppingRule& rule, const StridedCase& c, std::uint64_t seed) {
  const StridedSlice s = slice_of(c.matrix, c.slice);
  if (const auto shortfall = memory_shortfall(c.matrix.bytes() + 2 * s.bytes(), s.bytes())) {
    skip_benchmark(state, *shortfall);
    return;
  }
  const HostBuffer matrix(HostMemoryKind::pinned, c.matrix.bytes());
  fill_pattern_host(matrix.data(), c.matrix.bytes(), seed);
  const HostBuffer packed(HostMemoryKind::pinned, s.bytes());  // the pack's target, and the contiguous source
  if (c.method == StridedMethod::contiguous) pack_slice(matrix.data(), s, packed.data());
  const DeviceBuffer out(s.bytes());
  void* matrix_alias = nullptr;
  if (c.method == StridedMethod::mapped_kernel) {
    HDBENCH_CUDA_CHECK(cudaHostGetDevicePointer(&matrix_alias, matrix.data(), 0));
  }
  const Stream stream("strided");
  std::vector<double> pack_seconds;
  const std::string timed_range = c.name + "/timed";
  const auto move_slice = [&]() -> double {
    nvtx::ScopedRange range(kStridedNvtx, timed_range, s.bytes());
    const HostTimer timer;
    switch (c.method) {
      case StridedMethod::memcpy2d:
        HDBENCH_CUDA_CHECK(cudaMemcpy2DAsync(out.data(), s.row_bytes, matrix.data(), s.pitch, s.row_bytes, s.rows,
                                             cudaMemcpyHostToDevice, stream.get()));
        break;
      case StridedMethod::pack_then_copy:
        pack_slice(matrix.data(), s, packed.data());
        pack_seconds.push_back(timer.elapsed_seconds());
        [[fallthrough]];
      case StridedMethod::contiguous:
        HDBENCH_CUDA_CHECK(cudaMemcpyAsync(out.data(), packed.data(), s.bytes(), cudaMemcpyHostToDevice, stream.get()));
        break;
      case StridedMethod::mapped_kernel:
        kernels::gather_rows(matrix_alias, s.pitch, out.data(), s.row_bytes, s.rows, stream.get());
        break;
    }
    stream.synchronize();
    return timer.elapsed_seconds();
  };
  move_slice();  // warm-up
  pack_seconds.clear();
  fill_device_bytes(out.data(), 0, s.bytes());  // what the check reads must come from the samples
  const std::vector<double> seconds = run_samples(state, rule, move_slice);
  // The check: the GPU's packed slice against the host's packing of the same matrix.
  std::vector<unsigned char> expected(s.bytes()), got(s.bytes());
  pack_slice(matrix.data(), s, expected.data());
  HDBENCH_CUDA_CHECK(cudaMemcpy(got.data(), out.data(), s.bytes(), cudaMemcpyDeviceToHost));
  if (std::memcmp(expected.data(), got.data(), s.bytes()) != 0) {
    fail_benchmark(state, fmt::format("the {} slice moved by {} differs from the host's packing of the matrix",
                                      to_string(c.slice), to_string(c.method)));
    return;
  }
  set_bandwidth_counters(state, s.bytes(), seconds);
  if (c.method == StridedMethod::pack_then_copy) state.counters["pack_us"] = 1e6 * summarize(pack_seconds).median;
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * s.bytes()));
}

class StridedFamily final : public Family {
 public:
  std::vector<std::string> names() const override { return {"strided"}; }
  void declare_flags(FlagParser& flags, const OptionLimits& limits) override {
    declare_strided_flags(flags, options_, limits);
  }
  FamilyDescription describe(const std::string&) const override { return strided_description(); }
  void register_benchmarks(Suite& suite, const std::string&) const override {
    const std::uint64_t seed = suite.options().seed;
    // add_gpu adds the device
    for_each_case(
        "strided", {"slice", "method", "matrix"},
        [&](CaseId& id, const MatrixShape& matrix, SliceKind slice, StridedMethod method) {
          const StridedSlice s = slice_of(matrix, slice);
          id.param("bytes", s.bytes())
              .param("rows", s.rows)
              .param("row_bytes", s.row_bytes)
              .param("pitch_bytes", s.pitch)
              .param("direction", "h2d")
              .param("memory", "pinned");
          const StridedCase c{matrix, slice, method, id.name()};
          suite.add_gpu(id.name(), id.params(), [&suite, c, seed](benchmark::State& state) {
            run_strided(state, suite.stopping_rule(), c, seed);
          });
        },
        named_case_axis("matrix", options_.matrices), named_case_axis("slice", options_.slices),
        named_case_axis("method", options_.methods));
  }

 private:
  StridedOptions options_;
};

}  // namespace

std::unique_ptr<Family> make_strided_family() { return std::make_unique<StridedFamily>(); }

}  // namespace hdbench
