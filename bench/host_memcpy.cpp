// Host memcpy bandwidth with one or more threads: the host-side reference for
// pageable and staged copies (a pageable transfer can never beat the memcpy into the
// driver's staging buffers). Runs without a GPU. GB/s counts the bytes copied once,
// not read + write.
#include <fmt/format.h>

#include <algorithm>
#include <cstring>

#include "core/case_grid.hpp"
#include "core/grouped_timing.hpp"
#include "core/host_memory.hpp"
#include "core/host_pattern.hpp"
#include "core/measure.hpp"
#include "core/nvtx.hpp"
#include "core/timing.hpp"
#include "core/verify.hpp"
#include "transfer/memcpy_pool.hpp"
#include "transfer/transfer_description.hpp"
#include "transfer_bench.hpp"

namespace hdbench {
namespace {

// Copies per sample: one copy of a few KiB takes tens of nanoseconds, close to the
// clock's own cost, so small sizes are timed over a batch.
std::size_t copies_per_sample(std::size_t bytes) {
  return std::clamp<std::size_t>((std::size_t{1} << 20) / bytes, 1, 256);
}

void run_host_memcpy(benchmark::State& state, const Suite& suite, int threads, std::size_t bytes,
                     const std::string& name) {
  if (const auto shortfall = memory_shortfall(2 * bytes, 0)) {
    skip_benchmark(state, *shortfall);
    return;
  }
  PageableBuffer src(bytes);
  PageableBuffer dst(bytes);
  fill_pattern_host(src.data(), bytes, suite.options().seed);
  std::memset(dst.data(), 0, bytes);
  MemcpyPool pool(threads, "host_memcpy");
  pool.copy(dst.data(), src.data(), bytes);  // warm-up: wakes the workers, warms the TLB
  const std::size_t copies = copies_per_sample(bytes);
  const std::string timed_range = name + "/timed";
  const std::vector<double> seconds =
      time_grouped_calls(state, copies, suite.stopping_rule(), [&](std::size_t group) {  // per copy
        nvtx::ScopedRange range(kHostMemcpyNvtx, timed_range, bytes * group);
        HostTimer timer;
        for (std::size_t i = 0; i < group; ++i) pool.copy(dst.data(), src.data(), bytes);
        return timer.elapsed_seconds();
      });
  {
    nvtx::ScopedRange range(kHostMemcpyNvtx, name + "/verify", bytes);
    if (const std::string problem = check_host_pattern_on_cpu(dst.data(), bytes, suite.options().seed);
        !problem.empty()) {
      fail_benchmark(state, problem);
      return;
    }
  }
  set_bandwidth_counters(state, bytes, seconds);
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * bytes));
}

}  // namespace

void register_host_memcpy(Suite& suite, const TransferOptions& t) {
  for_each_case(
      "host_memcpy", {},
      [&](CaseId& id, int threads, std::size_t bytes) {
        id.param("memory", "pageable");
        const std::string name = id.name();
        suite.add(name, id.params(), [&suite, threads, bytes, name](benchmark::State& state) {
          run_host_memcpy(state, suite, threads, bytes, name);
        });
      },
      labelled_case_axis("threads", t.memcpy_threads), size_case_axis("bytes", t.sizes));
}

}  // namespace hdbench
