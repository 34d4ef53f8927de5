// The device_local family: what is this GPU's memory roof? A copy between two buffers
// in one GPU's memory, by the copy engine (cudaMemcpyAsync device to device) and by SM
// copy kernels, timed by CUDA events and checked against the pattern. Its GB/s counts the
// bytes copied (each is read once and written once: the memory moves twice as many), as
// nvbandwidth's device_local_copy does, so every other GPU-side figure reads against it.
// Has not run on a GPU yet.
#include <fmt/format.h>

#include "core/case_grid.hpp"
#include "core/cuda.hpp"
#include "core/family.hpp"
#include "core/grouped_timing.hpp"
#include "core/measure.hpp"
#include "core/nvtx.hpp"
#include "core/option_values.hpp"
#include "core/report.hpp"
#include "core/stopping_rule.hpp"
#include "core/system.hpp"
#include "core/verify.hpp"
#include "device_local/device_local_description.hpp"
#include "device_local/device_local_options.hpp"
#include "transfer_kernels.hpp"

namespace hdbench {
namespace {

// Copies shorter than this are timed in groups: one is too short for CUDA events.
constexpr std::size_t kGroupBelowBytes = std::size_t{16} << 20;

void run_device_local(benchmark::State& state, const StoppingRule& rule, std::size_t bytes, bool sm, std::uint64_t seed,
                      int sm_blocks) {
  if (const auto shortfall = memory_shortfall(0, 2 * bytes)) {
    skip_benchmark(state, *shortfall);
    return;
  }
  const DeviceBuffer src(bytes), dst(bytes);
  const Stream stream("device_local");
  kernels::fill_pattern(src.data(), bytes, seed, stream.get());
  const Event start, stop;
  const auto enqueue = [&] {
    if (sm) {
      kernels::sm_copy(dst.data(), src.data(), bytes, sm_blocks, stream.get());
    } else {
      HDBENCH_CUDA_CHECK(cudaMemcpyAsync(dst.data(), src.data(), bytes, cudaMemcpyDeviceToDevice, stream.get()));
    }
  };
  enqueue();  // warm-up
  stream.synchronize();
  fill_device_bytes(dst.data(), 0, bytes);  // what the check reads must come from the samples
  const std::size_t group = bytes < kGroupBelowBytes ? kGroupBelowBytes / bytes : 1;
  const std::string timed_range = fmt::format("device_local/{}/{}/timed", sm ? "sm" : "copy", format_size(bytes));
  const std::vector<double> seconds = time_grouped_calls(state, group, rule, [&](std::size_t calls) {
    nvtx::ScopedRange range(kDeviceLocalNvtx, timed_range, bytes * calls);
    start.record(stream.get());
    for (std::size_t i = 0; i < calls; ++i) enqueue();
    stop.record(stream.get());
    stop.synchronize();
    return elapsed_ms(start, stop) / 1e3;
  });
  if (const std::string problem = check_device_pattern(dst.data(), bytes, seed, stream.get()); !problem.empty()) {
    fail_benchmark(state, problem);
    return;
  }
  set_bandwidth_counters(state, bytes, seconds);
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * bytes));
}

class DeviceLocalFamily final : public Family {
 public:
  std::vector<std::string> names() const override { return {"device_local"}; }
  void declare_flags(FlagParser& flags, const OptionLimits&) override {
    options_ = default_device_local_options();
    declare_device_local_flags(flags, options_);
  }
  FamilyDescription describe(const std::string&) const override { return device_local_description(); }
  void register_benchmarks(Suite& suite, const std::string&) const override {
    const std::uint64_t seed = suite.options().seed;
    const CaseAxis<bool> engines{"engine", options_.sm_engine,
                                 [](const bool& sm) { return nlohmann::json(sm ? "sm" : "copy"); },
                                 [](const bool& sm) { return std::string(sm ? "sm" : "copy"); }};
    for_each_case(
        "device_local", {},
        [&](CaseId& id, bool sm, std::size_t bytes) {
          id.param("direction", "d2d").param("memory", "device");
          suite.add_gpu(id.name(), id.params(), [&suite, bytes, sm, seed](benchmark::State& state) {
            int device = 0, sms = 0;
            HDBENCH_CUDA_CHECK(cudaGetDevice(&device));
            HDBENCH_CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
            run_device_local(state, suite.stopping_rule(), bytes, sm, seed, 8 * sms);  // as transfer's SM copies
          });
        },
        engines, size_case_axis("bytes", options_.sizes));
  }

 private:
  DeviceLocalOptions options_;
};

}  // namespace

std::unique_ptr<Family> make_device_local_family() { return std::make_unique<DeviceLocalFamily>(); }

}  // namespace hdbench
