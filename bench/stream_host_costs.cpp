// What the host pays around small transfers, where these costs rather than bandwidth
// decide the time: launching an empty kernel, issuing one cudaMemcpyAsync, and
// waiting for the GPU with each of the runtime's mechanisms, on an idle stream and
// right after an empty kernel (the round trip a small synchronous step pays).
// Host work, so timed with the host clock.
#include <fmt/format.h>

#include <functional>
#include <string>
#include <vector>

#include "core/case_grid.hpp"
#include "core/cuda.hpp"
#include "core/grouped_timing.hpp"
#include "core/host_memory.hpp"
#include "core/nvtx.hpp"
#include "core/timing.hpp"
#include "stream_kernels.hpp"
#include "streams/streams_description.hpp"
#include "streams_bench.hpp"

namespace hdbench {
namespace {

// Calls issued per sample when only the issuing is timed: enough to put the timer's
// own cost far below one call, few enough that the launch queue never fills (and
// blocks the host) before the untimed synchronisation.
constexpr int kCallsPerSample = 64;

enum class Wait { stream_synchronize, event_synchronize, event_query_poll, device_synchronize };

const char* to_string(Wait w) {
  switch (w) {
    case Wait::stream_synchronize:
      return "stream_synchronize";
    case Wait::event_synchronize:
      return "event_synchronize";
    case Wait::event_query_poll:
      return "event_query_poll";
    case Wait::device_synchronize:
      return "device_synchronize";
  }
  return "unknown";
}

void wait_with(Wait w, cudaStream_t stream, const Event& done) {
  switch (w) {
    case Wait::stream_synchronize:
      HDBENCH_CUDA_CHECK(cudaStreamSynchronize(stream));
      break;
    case Wait::event_synchronize:
      done.record(stream);
      done.synchronize();
      break;
    case Wait::event_query_poll: {
      done.record(stream);
      cudaError_t status = cudaErrorNotReady;
      while ((status = cudaEventQuery(done.get())) == cudaErrorNotReady) {
      }
      HDBENCH_CUDA_CHECK(status);
      break;
    }
    case Wait::device_synchronize:
      HDBENCH_CUDA_CHECK(cudaDeviceSynchronize());
      break;
  }
}

void set_call_counters(benchmark::State& state, const std::vector<double>& per_call_seconds) {
  const SampleStats stats = summarize(per_call_seconds);
  state.counters["per_call_us"] = stats.median * 1e6;
  state.counters["per_call_best_us"] = stats.min * 1e6;
  state.counters["cv_percent"] = stats.cv * 100.0;
  state.counters["samples"] = static_cast<double>(stats.count);
}

// Times `issue` (kCallsPerSample calls) per sample; `drain` runs untimed after each.
void time_calls(benchmark::State& state, const StoppingRule& rule, const std::string& name,
                const std::function<void()>& issue, const std::function<void()>& drain, int calls_per_sample) {
  issue();  // warm-up: module load, first launch
  drain();
  nvtx::ScopedRange range(kStreamsNvtx, name + "/timed");
  // A sample is `calls_per_sample` calls, the Time column one call; the untimed drain
  // is at most one kernel-sized wait per call.
  const std::vector<double> per_call =
      time_grouped_calls(state, static_cast<std::size_t>(calls_per_sample), rule, [&](std::size_t) {
        HostTimer timer;
        issue();
        const double elapsed = timer.elapsed_seconds();
        drain();
        return elapsed;
      });
  set_call_counters(state, per_call);
}

void run_launch(benchmark::State& state, const StoppingRule& rule, const std::string& name) {
  const Stream stream("host_cost");
  time_calls(
      state, rule, name,
      [&] {
        for (int i = 0; i < kCallsPerSample; ++i) kernels::empty_kernel(stream.get());
      },
      [&] { stream.synchronize(); }, kCallsPerSample);
}

void run_memcpy_call(benchmark::State& state, const StoppingRule& rule, const std::string& name) {
  const Stream stream("host_cost");
  const HostBuffer host(HostMemoryKind::pinned, sizeof(std::uint32_t));
  const DeviceBuffer device(sizeof(std::uint32_t));
  *host.as<std::uint32_t>() = 0x12345678u;
  time_calls(
      state, rule, name,
      [&] {
        for (int i = 0; i < kCallsPerSample; ++i) {
          HDBENCH_CUDA_CHECK(
              cudaMemcpyAsync(device.data(), host.data(), sizeof(std::uint32_t), cudaMemcpyHostToDevice, stream.get()));
        }
      },
      [&] { stream.synchronize(); }, kCallsPerSample);
  std::uint32_t back = 0;
  HDBENCH_CUDA_CHECK(cudaMemcpy(&back, device.data(), sizeof(back), cudaMemcpyDeviceToHost));
  if (back != 0x12345678u) fail_benchmark(state, fmt::format("the copied word reads back as {:#x}", back));
}

void run_wait(benchmark::State& state, const StoppingRule& rule, const std::string& name, Wait w, bool after_kernel) {
  const Stream stream("host_cost");
  const Event done(cudaEventDisableTiming);
  time_calls(
      state, rule, name,
      [&] {
        if (after_kernel) kernels::empty_kernel(stream.get());
        wait_with(w, stream.get(), done);
      },
      [] {}, 1);
}

}  // namespace

void register_stream_host_costs(Suite& suite) {
  using Run = std::function<void(benchmark::State&, const StoppingRule&, const std::string&)>;
  const auto add = [&](const CaseId& id, const Run& run) {
    const std::string name = id.name();
    suite.add_gpu(name, id.params(),
                  [&suite, run, name](benchmark::State& state) { run(state, suite.stopping_rule(), name); });
  };
  // "streams/host_cost/<operation>"
  const CaseAxis<std::string> host_cost = word_case_axis("variant", {"host_cost"});

  // Issuing one call, two chosen by hand (no grid): an empty kernel's launch, and a
  // cudaMemcpyAsync of 4 bytes (its size in the params).
  struct Call {
    std::string operation;
    std::size_t bytes = 0;
    Run run;
  };
  const CaseAxis<Call> calls{
      "operation",
      {{"launch_empty_kernel", 0, run_launch}, {"memcpy_async_call", sizeof(std::uint32_t), run_memcpy_call}},
      [](const Call& c) { return nlohmann::json(c.operation); },
      [](const Call& c) { return c.operation; }};
  for_each_case(
      "streams", {},
      [&](CaseId& id, const std::string&, const Call& call) {
        if (call.bytes > 0) id.param("bytes", call.bytes);
        add(id, call.run);
      },
      host_cost, calls);

  // Waiting for the GPU by each mechanism, on an idle stream and right after an empty
  // kernel: the operation is both ("event_synchronize/idle").
  const auto after_text = [](const bool& after_kernel) {
    return std::string(after_kernel ? "after_empty_kernel" : "idle");
  };
  for_each_case(
      "streams", {},
      [&](CaseId& id, const std::string&, Wait w, bool after_kernel) {
        id.param("operation", fmt::format("{}/{}", to_string(w), after_text(after_kernel)));
        add(id, [w, after_kernel](benchmark::State& state, const StoppingRule& rule, const std::string& name) {
          run_wait(state, rule, name, w, after_kernel);
        });
      },
      host_cost,
      named_case_axis("wait", std::vector<Wait>{Wait::stream_synchronize, Wait::event_synchronize,
                                                Wait::event_query_poll, Wait::device_synchronize}),
      CaseAxis<bool>{"after_empty_kernel",
                     {false, true},
                     [](const bool& after_kernel) { return nlohmann::json(after_kernel); },
                     after_text});
}

}  // namespace hdbench
