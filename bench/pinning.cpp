// What pinning costs: cudaMallocHost + cudaFreeHost, and cudaHostRegister +
// cudaHostUnregister on memory the program already has. From these and the transfer
// rates of the same run, the derivation works out after how many transfers pinning
// has paid for itself.
#include <fmt/format.h>

#include <cstring>

#include "core/case_grid.hpp"
#include "core/cuda.hpp"
#include "core/host_memory.hpp"
#include "core/measure.hpp"
#include "core/nvtx.hpp"
#include "core/report_rows.hpp"
#include "core/stopping_rule.hpp"
#include "core/timing.hpp"
#include "transfer/transfer_derivations.hpp"
#include "transfer/transfer_description.hpp"
#include "transfer_bench.hpp"

namespace hdbench {
namespace {

enum class PinMethod { malloc_host, register_existing };

const char* method_name(PinMethod method) { return method == PinMethod::malloc_host ? "malloc_host" : "register"; }

// Pin and unpin are timed on the host clock: they are host-side driver work with no
// device stream to put events on.
void run_pinning(benchmark::State& state, const StoppingRule& rule, PinMethod method, std::size_t bytes,
                 const std::string& name) {
  if (const auto shortfall = memory_shortfall(bytes, 0)) {
    skip_benchmark(state, *shortfall);
    return;
  }
  PageableBuffer existing;
  if (method == PinMethod::register_existing) {
    existing = PageableBuffer(bytes);
    std::memset(existing.data(), 1, bytes);  // registering untouched pages would also fault them in
  }
  const std::string timed_range = name + "/timed";
  std::vector<double> pin_seconds, unpin_seconds;
  const std::vector<double> total_seconds = run_samples(state, rule, [&] {
    nvtx::ScopedRange range(kPinningNvtx, timed_range, bytes);
    HostTimer timer;
    void* pinned = nullptr;
    if (method == PinMethod::malloc_host) {
      HDBENCH_CUDA_CHECK(cudaMallocHost(&pinned, bytes));
    } else {
      HDBENCH_CUDA_CHECK(cudaHostRegister(existing.data(), bytes, cudaHostRegisterDefault));
    }
    const double pinned_at = timer.elapsed_seconds();
    if (method == PinMethod::malloc_host) {
      HDBENCH_CUDA_CHECK(cudaFreeHost(pinned));
    } else {
      HDBENCH_CUDA_CHECK(cudaHostUnregister(existing.data()));
    }
    const double total = timer.elapsed_seconds();
    pin_seconds.push_back(pinned_at);
    unpin_seconds.push_back(total - pinned_at);
    return total;
  });
  const SampleStats pin = summarize(pin_seconds);
  const SampleStats unpin = summarize(unpin_seconds);
  state.counters["pin_us"] = pin.median * 1e6;
  state.counters["unpin_us"] = unpin.median * 1e6;
  state.counters["pin_unpin_us"] = (pin.median + unpin.median) * 1e6;
  if (pin.median > 0.0) state.counters["pin_rate_GB/s"] = static_cast<double>(bytes) / pin.median / 1e9;
  state.counters["cv_percent"] = summarize(total_seconds).cv * 100.0;
}

// One line per size, direction and method: transfers after which pinning pays for itself.
void print_break_even(const nlohmann::json& derived, bool several_gpus) {
  if (!derived.contains("pinning_break_even")) return;
  fmt::print("Pinning break-even (transfers after which pinning pays for itself):\n");
  for (const auto& row : derived["pinning_break_even"]) {
    fmt::print("  {}{:>8} {} {:<11} {}\n", device_tag(row, several_gpus), format_size(row["bytes"].get<std::size_t>()),
               row["direction"].get<std::string>(), row["method"].get<std::string>(),
               row["transfers_to_break_even"].is_null()
                   ? std::string("never (pinned is not faster)")
                   : fmt::format("{}", row["transfers_to_break_even"].get<double>()));
  }
}

}  // namespace

void register_pinning(Suite& suite, const TransferOptions& t) {
  const CaseAxis<PinMethod> methods{"method",
                                    {PinMethod::malloc_host, PinMethod::register_existing},
                                    [](const PinMethod& m) { return nlohmann::json(method_name(m)); },
                                    [](const PinMethod& m) { return std::string(method_name(m)); }};
  for_each_case(
      "pinning", {},
      [&](CaseId& id, PinMethod method, std::size_t bytes) {
        const std::string name = id.name();
        suite.add_gpu(name, id.params(), [&suite, method, bytes, name](benchmark::State& state) {
          run_pinning(state, suite.stopping_rule(), method, bytes, name);
        });
      },
      methods, size_case_axis("bytes", t.sizes));
  suite.add_derivation(derive_break_even);
  suite.add_console_summary(print_break_even);
}

}  // namespace hdbench
