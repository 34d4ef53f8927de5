// The managed family: is unified memory a free lunch here? A managed buffer the host
// wrote, read by a kernel (h2d: its pages migrate on demand, or by a prefetch, or stay
// put under memory advice), and one the GPU wrote, read by the host (d2h). Each sample
// first puts every page back where the other side wrote it (untimed), so each timed read
// moves the whole buffer; every read is checked against the pattern that was written.
// The summary sets the figures beside pinned copies of the same size from the transfer
// family. Has not run on a GPU yet.
#include <fmt/format.h>

#include "core/case_grid.hpp"
#include "core/cuda.hpp"
#include "core/family.hpp"
#include "core/host_pattern.hpp"
#include "core/measure.hpp"
#include "core/nvtx.hpp"
#include "core/option_values.hpp"
#include "core/report.hpp"
#include "core/stopping_rule.hpp"
#include "core/timing.hpp"
#include "managed/managed_description.hpp"
#include "managed/managed_memory.hpp"
#include "managed/managed_options.hpp"
#include "transfer_kernels.hpp"

namespace hdbench {
namespace {

enum class Way { h2d, d2h };

struct ManagedCase {
  Way way = Way::h2d;
  ManagedVariant variant = ManagedVariant::demand;
  std::size_t bytes = 0;
  std::string name;  // the case's, from its axes (for_each_case)
};

const char* to_string(Way way) noexcept { return way == Way::h2d ? "h2d" : "d2h"; }

// The GPU reads every page of a buffer the host wrote: the read is the mismatch count
// against the pattern, so the timed read also verifies what arrived.
double gpu_reads_host_pages(const ManagedBuffer& buffer, const ManagedCase& c, int device, std::uint64_t seed,
                            cudaStream_t stream, const Event& start, const Event& stop,
                            unsigned long long* mismatches) {
  fill_pattern_host(buffer.data(), buffer.size(), seed);  // every page back on the host (untimed)
  if (c.variant == ManagedVariant::prefetch) {
    start.record(stream);
    buffer.prefetch(device, stream);  // the timed part: the migration alone
    stop.record(stream);
    kernels::count_pattern_mismatches(buffer.data(), buffer.size(), seed, mismatches, stream);
  } else {
    start.record(stream);
    kernels::count_pattern_mismatches(buffer.data(), buffer.size(), seed, mismatches, stream);
    stop.record(stream);
  }
  HDBENCH_CUDA_CHECK(cudaStreamSynchronize(stream));
  return elapsed_ms(start, stop) / 1e3;
}

// One load per 4 KiB page: each fault migrates its page, so the time is the migration's
// (the host's own read rate would otherwise be part of it).
void touch_every_page(const void* data, std::size_t bytes) {
  const auto* bytes_in = static_cast<const volatile unsigned char*>(data);
  unsigned sum = 0;
  for (std::size_t i = 0; i < bytes; i += 4096) sum += bytes_in[i];
  benchmark::DoNotOptimize(sum);
}

// The host reads every page of a buffer the GPU wrote; a prefetch to the host first
// when the variant says so (then that is what is timed).
double host_reads_gpu_pages(const ManagedBuffer& buffer, const ManagedCase& c, int device, std::uint64_t seed,
                            cudaStream_t stream, const Event& start, const Event& stop, std::size_t& mismatches) {
  kernels::fill_pattern(buffer.data(), buffer.size(), seed, stream);  // written by the GPU (untimed)
  // The writes fault the pages over, unless the driver chose to map some remotely (its
  // thrashing mitigation): the prefetch makes sure every page starts on the GPU.
  buffer.prefetch(device, stream);
  HDBENCH_CUDA_CHECK(cudaStreamSynchronize(stream));
  double seconds = 0.0;
  if (c.variant == ManagedVariant::prefetch) {
    start.record(stream);
    buffer.prefetch(-1, stream);
    stop.record(stream);
    HDBENCH_CUDA_CHECK(cudaStreamSynchronize(stream));
    seconds = elapsed_ms(start, stop) / 1e3;
    if (find_pattern_mismatch(buffer.data(), buffer.size(), seed)) ++mismatches;
  } else {
    const HostTimer timer;
    touch_every_page(buffer.data(), buffer.size());
    seconds = timer.elapsed_seconds();
    if (find_pattern_mismatch(buffer.data(), buffer.size(), seed)) ++mismatches;  // untimed: pages are here now
  }
  return seconds;
}

void run_managed(benchmark::State& state, const StoppingRule& rule, const ManagedCase& c, std::uint64_t seed) {
  int device = 0;
  HDBENCH_CUDA_CHECK(cudaGetDevice(&device));
  if (const std::string why = managed_unsupported_reason(device); !why.empty()) {
    skip_benchmark(state, why);
    return;
  }
  if (const auto shortfall = memory_shortfall(c.bytes, c.bytes)) {
    skip_benchmark(state, *shortfall);
    return;
  }
  const ManagedBuffer buffer(c.bytes);
  buffer.advise(c.variant, device);
  const Stream stream("managed");
  const Event start, stop;
  DeviceBuffer mismatches_on_gpu(sizeof(unsigned long long));
  fill_device_bytes(mismatches_on_gpu.data(), 0, sizeof(unsigned long long));
  auto* gpu_mismatches = static_cast<unsigned long long*>(mismatches_on_gpu.data());
  std::size_t host_mismatches = 0;
  const std::string timed_range = c.name + "/timed";
  const auto sample = [&] {
    nvtx::ScopedRange range(kManagedNvtx, timed_range, c.bytes);
    return c.way == Way::h2d
               ? gpu_reads_host_pages(buffer, c, device, seed, stream.get(), start, stop, gpu_mismatches)
               : host_reads_gpu_pages(buffer, c, device, seed, stream.get(), start, stop, host_mismatches);
  };
  sample();  // warm-up: first-touch page-table set-up stays out of the samples
  const std::vector<double> seconds = run_samples(state, rule, sample);
  unsigned long long wrong_bytes = 0;
  HDBENCH_CUDA_CHECK(cudaMemcpy(&wrong_bytes, gpu_mismatches, sizeof wrong_bytes, cudaMemcpyDeviceToHost));
  if (wrong_bytes != 0 || host_mismatches != 0) {
    fail_benchmark(state, fmt::format("managed {} read the wrong data: {} bytes differ on the GPU, {} host reads "
                                      "differed from the pattern written",
                                      c.way == Way::h2d ? "h2d" : "d2h", wrong_bytes, host_mismatches));
    return;
  }
  set_bandwidth_counters(state, c.bytes, seconds);
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * c.bytes));
}

class ManagedFamily final : public Family {
 public:
  std::vector<std::string> names() const override { return {"managed"}; }
  void declare_flags(FlagParser& flags, const OptionLimits& limits) override {
    options_ = default_managed_options();
    declare_managed_flags(flags, options_, limits);
  }
  FamilyDescription describe(const std::string&) const override { return managed_description(); }
  void register_benchmarks(Suite& suite, const std::string&) const override {
    const std::uint64_t seed = suite.options().seed;
    // add_gpu adds the device
    for_each_case(
        "managed", {},
        [&](CaseId& id, Way way, ManagedVariant variant, std::size_t bytes) {
          if (way == Way::d2h && !managed_variant_has_d2h(variant)) return;
          id.param("memory", "managed");
          const ManagedCase c{way, variant, bytes, id.name()};
          suite.add_gpu(id.name(), id.params(), [&suite, c, seed](benchmark::State& state) {
            run_managed(state, suite.stopping_rule(), c, seed);
          });
        },
        named_case_axis("direction", std::vector<Way>{Way::h2d, Way::d2h}),
        named_case_axis("variant", options_.variants), size_case_axis("bytes", options_.sizes));
  }

 private:
  ManagedOptions options_;
};

}  // namespace

std::unique_ptr<Family> make_managed_family() { return std::make_unique<ManagedFamily>(); }

}  // namespace hdbench
