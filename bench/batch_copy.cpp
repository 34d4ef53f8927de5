// The batch_copy family: should a batch move as one buffer? A batch of K tensors of the
// stated mix (batch_copy/batch_mix.hpp), each in its own pinned buffer as after
// pin_memory, moved to the GPU: one cudaMemcpyAsync per tensor, gathered into one
// pinned buffer on the host and copied once (the gather is timed), cudaMemcpyBatchAsync,
// or one kernel gathering over mapped memory; and, as the floor, one copy of a buffer
// already packed. Every sample is the host's time from the first call to the stream's
// end, so each way pays what a training loop would. Every tensor is checked on the GPU
// after timing. Has not run on a GPU yet.
#include <fmt/format.h>

#include <algorithm>
#include <numeric>

#include "batch_copy/batch_copy_description.hpp"
#include "batch_copy/batch_copy_options.hpp"
#include "batch_copy/batch_mix.hpp"
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
#include "core/verify.hpp"
#include "movement_kernels.hpp"

namespace hdbench {
namespace {

struct BatchCase {
  BatchMethod method = BatchMethod::per_tensor;
  int tensors = 1;
  std::string name;  // the case's, from its axes (for_each_case)
};

// The batch on both sides: K pinned sources (tensor i holds pattern(seed + i)), one
// device buffer with tensor i at offsets[i], and the pinned staging buffer packing uses.
struct Batch {
  Batch(int tensors, std::uint64_t seed)
      : sizes(batch_tensor_sizes(tensors)),
        offsets(packed_offsets(sizes)),
        packed_size(packed_bytes(sizes, offsets)),
        device(packed_size),
        staging(HostMemoryKind::pinned, packed_size) {
    for (std::size_t i = 0; i < sizes.size(); ++i) {
      sources.emplace_back(HostMemoryKind::pinned, sizes[i]);
      fill_pattern_host(sources.back().data(), sizes[i], seed + i);
      source_pointers.push_back(sources.back().data());
    }
  }
  void* device_tensor(std::size_t i) const { return static_cast<unsigned char*>(device.data()) + offsets[i]; }
  std::size_t payload() const { return std::accumulate(sizes.begin(), sizes.end(), std::size_t{0}); }

  std::vector<std::size_t> sizes, offsets;
  std::size_t packed_size = 0;
  DeviceBuffer device;
  HostBuffer staging;
  std::vector<HostBuffer> sources;
  std::vector<const void*> source_pointers;
};

// Every tensor on the GPU holds its pattern; "" or what differs.
std::string check_batch(const Batch& b, std::uint64_t seed, cudaStream_t stream) {
  for (std::size_t i = 0; i < b.sizes.size(); ++i) {
    if (std::string problem = check_device_pattern(b.device_tensor(i), b.sizes[i], seed + i, stream);
        !problem.empty()) {
      return fmt::format("tensor {} of {} ({} B): {}", i, b.sizes.size(), b.sizes[i], problem);
    }
  }
  return {};
}

// cudaMemcpyBatchAsync, where the toolkit has it (12.8+): "" when the copies are
// enqueued, else why it cannot run here.
std::string copy_batch_api(const Batch& b, cudaStream_t stream) {
#if CUDART_VERSION >= 12080
  std::vector<void*> dsts;
  std::vector<const void*> srcs;
  for (std::size_t i = 0; i < b.sizes.size(); ++i) {
    dsts.push_back(b.device_tensor(i));
    srcs.push_back(b.source_pointers[i]);
  }
  cudaMemcpyAttributes attributes{};
  attributes.srcAccessOrder = cudaMemcpySrcAccessOrderStream;  // the sources are ready when the call is made
  std::size_t first_with_attributes = 0;
#if CUDART_VERSION >= 13000
  const cudaError_t status = cudaMemcpyBatchAsync(dsts.data(), srcs.data(), b.sizes.data(), b.sizes.size(), &attributes,
                                                  &first_with_attributes, 1, stream);
#else
  std::size_t failed_at = 0;
  const cudaError_t status =
      cudaMemcpyBatchAsync(dsts.data(), const_cast<void**>(srcs.data()), b.sizes.data(), b.sizes.size(), &attributes,
                           &first_with_attributes, 1, &failed_at, stream);
#endif
  if (status == cudaErrorNotSupported || status == cudaErrorCallRequiresNewerDriver) {
    cudaGetLastError();
    return fmt::format("cudaMemcpyBatchAsync is not supported here ({}): the driver predates CUDA 12.8",
                       cudaGetErrorName(status));
  }
  HDBENCH_CUDA_CHECK(status);
  return {};
#else
  (void)b;
  (void)stream;
  return fmt::format("cudaMemcpyBatchAsync needs CUDA 12.8 or newer; this build's runtime is {}", CUDART_VERSION);
#endif
}

void run_batch(benchmark::State& state, const StoppingRule& rule, const BatchCase& c, std::uint64_t seed) {
  const std::vector<std::size_t> sizes = batch_tensor_sizes(c.tensors);
  const std::size_t total = std::accumulate(sizes.begin(), sizes.end(), std::size_t{0});
  if (const auto shortfall = memory_shortfall(3 * total, total)) {
    skip_benchmark(state, *shortfall);
    return;
  }
  const Batch b(c.tensors, seed);
  const Stream stream("batch_copy");
  if (c.method == BatchMethod::one_copy) gather_tensors(b.source_pointers, b.sizes, b.offsets, b.staging.data());
  // The mapped kernel's table: each tensor's device-side alias, where it goes, its size.
  DeviceBuffer table(sizeof(kernels::Segment) * b.sizes.size());
  if (c.method == BatchMethod::mapped_kernel) {
    std::vector<kernels::Segment> segments;
    for (std::size_t i = 0; i < b.sizes.size(); ++i) {
      void* alias = nullptr;
      HDBENCH_CUDA_CHECK(cudaHostGetDevicePointer(&alias, b.sources[i].data(), 0));
      segments.push_back({alias, b.device_tensor(i), b.sizes[i]});
    }
    upload_bytes(table.data(), segments.data(), sizeof(kernels::Segment) * segments.size());
  }
  std::vector<double> gather_seconds, copy_seconds;
  const std::string timed_range = c.name + "/timed";
  const auto move_batch = [&]() -> double {
    nvtx::ScopedRange range(kBatchCopyNvtx, timed_range, total);
    const HostTimer timer;
    switch (c.method) {
      case BatchMethod::per_tensor:
        for (std::size_t i = 0; i < b.sizes.size(); ++i) {
          HDBENCH_CUDA_CHECK(cudaMemcpyAsync(b.device_tensor(i), b.source_pointers[i], b.sizes[i],
                                             cudaMemcpyHostToDevice, stream.get()));
        }
        break;
      case BatchMethod::packed: {
        gather_tensors(b.source_pointers, b.sizes, b.offsets, b.staging.data());
        gather_seconds.push_back(timer.elapsed_seconds());
        HDBENCH_CUDA_CHECK(
            cudaMemcpyAsync(b.device.data(), b.staging.data(), b.packed_size, cudaMemcpyHostToDevice, stream.get()));
        break;
      }
      case BatchMethod::batch_api:
        if (const std::string why = copy_batch_api(b, stream.get()); !why.empty()) throw std::runtime_error(why);
        break;
      case BatchMethod::mapped_kernel:
        kernels::gather_segments(static_cast<const kernels::Segment*>(table.data()), static_cast<int>(b.sizes.size()),
                                 b.packed_size, stream.get());
        break;
      case BatchMethod::one_copy:
        HDBENCH_CUDA_CHECK(
            cudaMemcpyAsync(b.device.data(), b.staging.data(), b.packed_size, cudaMemcpyHostToDevice, stream.get()));
        break;
    }
    stream.synchronize();
    const double seconds = timer.elapsed_seconds();
    if (c.method == BatchMethod::packed) copy_seconds.push_back(seconds - gather_seconds.back());
    return seconds;
  };
  if (c.method == BatchMethod::batch_api) {  // does this driver have it?
    if (const std::string why = copy_batch_api(b, stream.get()); !why.empty()) {
      skip_benchmark(state, why);
      return;
    }
    stream.synchronize();
  }
  move_batch();  // warm-up: first-use costs stay out of the samples
  gather_seconds.clear();
  copy_seconds.clear();
  fill_device_bytes(b.device.data(), 0, b.packed_size);  // what the check reads must come from the samples
  const std::vector<double> seconds = run_samples(state, rule, move_batch);
  if (const std::string problem = check_batch(b, seed, stream.get()); !problem.empty()) {
    fail_benchmark(state, problem);
    return;
  }
  set_bandwidth_counters(state, total, seconds);
  const double median = summarize(seconds).median;
  state.counters["batch_us"] = 1e6 * median;
  state.counters["per_tensor_us"] = 1e6 * median / c.tensors;
  state.counters["payload_bytes"] = static_cast<double>(total);
  if (c.method == BatchMethod::packed) {
    state.counters["gather_us"] = 1e6 * summarize(gather_seconds).median;
    state.counters["copy_us"] = 1e6 * summarize(copy_seconds).median;
  }
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * total));
}

class BatchCopyFamily final : public Family {
 public:
  std::vector<std::string> names() const override { return {"batch_copy"}; }
  void declare_flags(FlagParser& flags, const OptionLimits&) override { declare_batch_copy_flags(flags, options_); }
  FamilyDescription describe(const std::string&) const override { return batch_copy_description(); }
  void register_benchmarks(Suite& suite, const std::string&) const override {
    const std::uint64_t seed = suite.options().seed;
    // add_gpu adds the device
    for_each_case(
        "batch_copy", {"method", "tensors"},
        [&](CaseId& id, int tensors, BatchMethod method) {
          const std::vector<std::size_t> sizes = batch_tensor_sizes(tensors);
          id.param("bytes", std::accumulate(sizes.begin(), sizes.end(), std::size_t{0}))
              .param("mix", "256B..4MiB by 4x, tensor i of size mix[i % 8]")
              .param("memory", "pinned");
          const BatchCase c{method, tensors, id.name()};
          suite.add_gpu(id.name(), id.params(), [&suite, c, seed](benchmark::State& state) {
            run_batch(state, suite.stopping_rule(), c, seed);
          });
        },
        labelled_case_axis("tensors", options_.tensors), named_case_axis("method", options_.methods));
  }

 private:
  BatchCopyOptions options_;
};

}  // namespace

std::unique_ptr<Family> make_batch_copy_family() { return std::make_unique<BatchCopyFamily>(); }

}  // namespace hdbench
