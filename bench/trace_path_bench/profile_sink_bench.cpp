// hdbench_profile_sink_bench: hdbench_profile's hand-over path on synthetic records,
// without a GPU (a Google Benchmark executable of its own, not a family of hdbench).
//
// - BM_producer_api / BM_producer_range: what a program's thread pays per record, the
//   path of a CUPTI callback's exit (or an NVTX pop): two clock reads (steady_clock
//   stands in for cuptiGetTimestamp) and an append to the thread's HostRecordBuffers
//   buffer, with its hand-over to the ProfileSink's queue every 4096 records, while the
//   sink's writer thread runs. The writer keeps 100,000 records and counts the rest, so
//   the file stays small; the producer's cost does not depend on it (it only queues).
//   `producer_ns_per_record` (averaged over the threads with Threads(4)).
// - BM_step_mix: PyTorch-like steps (20 kernels, 2 copies and a memset from "CUPTI's
//   buffer thread" in batches of 64 steps; 25 api calls incl. 20 launches and 4 NVTX
//   ranges from the program's thread) through the whole path into a temp folder: the
//   records file and the Chrome trace, timed to finish() (everything on disk).
//   `records_per_s` is what the writer sustains; `producer_ns_per_record` what the
//   feeding threads spent per record meanwhile.
//
// What it cannot show: CUPTI's own cost per callback and per activity record on a GPU,
// nor what the old path (every runtime call as an activity record) cost a step.
//
//   hdbench_profile_sink_bench [--benchmark_filter=...] [--benchmark_format=json]
#include <benchmark/benchmark.h>
#include <fmt/format.h>
#include <unistd.h>

#include <array>
#include <chrono>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "trace/host_records.hpp"
#include "trace/profile_sink.hpp"

namespace {

namespace fs = std::filesystem;
using namespace hdbench::trace;
using Clock = std::chrono::steady_clock;

std::uint64_t now_ns() {
  return static_cast<std::uint64_t>(
      std::chrono::duration_cast<std::chrono::nanoseconds>(Clock::now().time_since_epoch()).count());
}

fs::path bench_dir(const char* what) {
  const fs::path dir = fs::temp_directory_path() / fmt::format("hdbench-profile-sink-bench-{}-{}", ::getpid(), what);
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir;
}

// One sink and its buffers for the producer benchmarks, all threads (the library has one).
struct ProducerPath {
  fs::path dir = bench_dir("producer");
  ProfileSink sink{dir, {{"type", "process"}, {"pid", ::getpid()}}, {.budget = 100'000, .trace_megabytes = 20.0}};
  HostRecordBuffers buffers{sink};
  ProducerPath() { sink.started(now_ns()); }
  ~ProducerPath() {
    buffers.flush_all();
    sink.finish({}, 0);
    fs::remove_all(dir);
  }
};

ProducerPath& producer_path() {
  static ProducerPath path;
  return path;
}

void BM_producer_api(benchmark::State& state) {
  HostRecordBuffers& buffers = producer_path().buffers;
  const std::string name = "cudaLaunchKernel";  // 16 characters: beyond the short-string buffer, as most are
  std::uint32_t correlation = 0;
  const auto t0 = Clock::now();
  for (auto _ : state) {
    const std::uint64_t start = now_ns();  // the entry callback's timestamp
    buffers.api(name, start, now_ns(), ++correlation);
  }
  const double ns = std::chrono::duration<double, std::nano>(Clock::now() - t0).count();
  state.counters["producer_ns_per_record"] =
      benchmark::Counter(ns / static_cast<double>(state.iterations()), benchmark::Counter::kAvgThreads);
}
BENCHMARK(BM_producer_api)->Threads(1)->Threads(4)->UseRealTime();

void BM_producer_range(benchmark::State& state) {
  HostRecordBuffers& buffers = producer_path().buffers;
  const std::string name = "## forward ##";
  const auto t0 = Clock::now();
  for (auto _ : state) {
    const std::uint64_t start = now_ns();
    buffers.range(name, start, now_ns());
  }
  const double ns = std::chrono::duration<double, std::nano>(Clock::now() - t0).count();
  state.counters["producer_ns_per_record"] =
      benchmark::Counter(ns / static_cast<double>(state.iterations()), benchmark::Counter::kAvgThreads);
}
BENCHMARK(BM_producer_range)->Threads(1)->UseRealTime();

const std::array<std::string, 4> kKernelNames = {
    "void at::native::vectorized_elementwise_kernel<4, at::native::CUDAFunctor_add<float>, "
    "at::detail::Array<char*, 3> >(int, at::native::CUDAFunctor_add<float>, at::detail::Array<char*, 3>)",
    "sm90_xmma_gemm_f32f32_tf32f32_f32_tn_n_tilesize128x128x32_warpgroupsize1x1x1_execute_segment_k_off_kernel__"
    "5x_cublas",
    "void at::native::(anonymous namespace)::cunn_SoftMaxForward<4, float, float, float, "
    "at::native::(anonymous namespace)::LogSoftMaxForwardEpilogue>(float*, float const*, int)",
    "void at::native::reduce_kernel<512, 1, at::native::ReduceOp<float, at::native::func_wrapper_t<float, "
    "at::native::sum_functor<float, float, float>::operator()(at::TensorIterator&)::{lambda(float, float)#1}>, "
    "unsigned int, float, 4> >(at::native::ReduceOp<float, at::native::func_wrapper_t<float, "
    "at::native::sum_functor<float, float, float>::operator()(at::TensorIterator&)::{lambda(float, float)#1}>, "
    "unsigned int, float, 4>)"};

// One step's GPU records (23), as CUPTI's activity buffers deliver them.
void gpu_records(std::vector<Record>& out, std::uint64_t t, std::uint32_t correlation) {
  for (int k = 0; k < 20; ++k) {
    Record r;
    r.kind = RecordKind::kernel;
    r.start_ns = t + 40'000 * k;
    r.end_ns = r.start_ns + 35'000;
    r.name = kKernelNames[k % kKernelNames.size()];
    r.device = 0;
    r.stream = 7;
    r.correlation = correlation + k;
    out.push_back(std::move(r));
  }
  for (int c = 0; c < 3; ++c) {
    Record r;
    r.kind = c < 2 ? RecordKind::memcpy : RecordKind::memset;
    r.start_ns = t + 850'000 + 30'000 * c;
    r.end_ns = r.start_ns + 20'000;
    r.name = c == 0 ? "HtoD" : c == 1 ? "DtoH" : "memset";
    r.device = 0;
    r.stream = c == 0 ? 13 : 7;
    r.bytes = 1u << 20;
    r.src = c == 0 ? MemoryKind::pinned : MemoryKind::device;
    r.dst = c == 0 ? MemoryKind::device : MemoryKind::pinned;
    r.async_api = c == 0;
    r.correlation = correlation + 20 + c;
    out.push_back(std::move(r));
  }
}

void BM_step_mix(benchmark::State& state) {
  const std::size_t steps = static_cast<std::size_t>(state.range(0));
  constexpr std::size_t kStepsPerCuptiBuffer = 64;
  constexpr std::size_t kRecordsPerStep = 23 + 25 + 4;
  const std::string launch = "cudaLaunchKernel", copy = "cudaMemcpyAsync", memset = "cudaMemsetAsync",
                    sync = "cudaStreamSynchronize";
  const std::array<std::string, 4> ranges = {"## forward ##", "## backward ##", "Optimizer.step#SGD.step",
                                             "enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__"};
  double producer_ns = 0, records = 0, bytes = 0;
  for (auto _ : state) {
    state.PauseTiming();
    const fs::path dir = bench_dir("steps");
    state.ResumeTiming();
    {
      ProfileSink sink(dir, {{"type", "process"}, {"pid", ::getpid()}});
      sink.started(1'000'000'000);
      HostRecordBuffers buffers(sink);
      // CUPTI's buffer thread: the GPU records, a buffer every 64 steps.
      auto gpu_feed = std::thread([&sink, steps] {
        std::vector<Record> batch;
        for (std::size_t s = 0; s < steps; ++s) {
          gpu_records(batch, 1'000'000'000 + s * 1'000'000, static_cast<std::uint32_t>(s * 25));
          if ((s + 1) % kStepsPerCuptiBuffer == 0 || s + 1 == steps) sink.consume(batch);
        }
      });
      const auto p0 = Clock::now();
      for (std::size_t s = 0; s < steps; ++s) {
        const std::uint64_t t = 1'000'000'000 + s * 1'000'000;
        const auto c = static_cast<std::uint32_t>(s * 25);
        for (int k = 0; k < 20; ++k) buffers.api(launch, t + 40'000 * k - 5'000, t + 40'000 * k - 1'000, c + k);
        buffers.api(copy, t + 840'000, t + 845'000, c + 20);
        buffers.api(copy, t + 870'000, t + 890'000, c + 21);
        buffers.api(memset, t + 900'000, t + 902'000, c + 22);
        buffers.api(sync, t + 903'000, t + 950'000, c + 23);
        buffers.api(copy, t + 951'000, t + 960'000, c + 24);
        for (int r = 0; r < 4; ++r) buffers.range(ranges[r], t + 200'000 * r, t + 200'000 * r + 150'000);
      }
      buffers.flush_all();
      producer_ns += std::chrono::duration<double, std::nano>(Clock::now() - p0).count();
      gpu_feed.join();
      sink.finish({}, 0);  // the writer drains the queue: everything is on disk
    }
    state.PauseTiming();
    for (const auto& entry : fs::directory_iterator(dir)) bytes += static_cast<double>(fs::file_size(entry));
    fs::remove_all(dir);
    records += static_cast<double>(steps * kRecordsPerStep);
    state.ResumeTiming();
  }
  state.counters["records_per_s"] = benchmark::Counter(records, benchmark::Counter::kIsRate);
  state.counters["steps_per_s"] =
      benchmark::Counter(static_cast<double>(steps * state.iterations()), benchmark::Counter::kIsRate);
  state.counters["written_MB_per_s"] = benchmark::Counter(bytes / 1e6, benchmark::Counter::kIsRate);
  // The program's thread's share (29 of the 52 records a step; the GPU's come from CUPTI's thread).
  state.counters["producer_ns_per_record"] = producer_ns / (static_cast<double>(steps * 29) * state.iterations());
}
BENCHMARK(BM_step_mix)->Arg(4000)->UseRealTime()->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
