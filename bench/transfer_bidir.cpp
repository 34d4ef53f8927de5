// Both directions at once on two streams: each direction's bandwidth and the sum.
// A link with one copy engine per direction (and full duplex PCIe) should approach
// twice the one-way figure.
#include <fmt/format.h>

#include <algorithm>
#include <iterator>

#include "core/case_grid.hpp"
#include "core/cuda.hpp"
#include "core/measure.hpp"
#include "core/nvtx.hpp"
#include "core/stopping_rule.hpp"
#include "transfer/bidir_copy.hpp"
#include "transfer/transfer_description.hpp"
#include "transfer_bench.hpp"

namespace hdbench {
namespace {

void run_bidir(benchmark::State& state, const Suite& suite, HostMemoryKind kind, Engine engine, std::size_t bytes,
               const std::string& name) {
  const system::GpuInfo& gpu = *suite.current_gpu();
  if (const auto shortfall = memory_shortfall(2 * bytes, 2 * bytes)) {
    skip_benchmark(state, *shortfall);
    return;
  }
  // Half the usual grid per direction, so both copy kernels fit on the GPU at once.
  BidirectionalCopy copy(kind, engine, bytes, suite.options().seed, gpu.sm_count * 4, suite.options().spin_timeout_ms);
  copy.run_once();  // warm-up
  const std::string timed_range = name + "/timed";
  std::vector<double> up, down, span;
  double overlap = 0.0;
  span = run_samples(state, suite.stopping_rule(), [&] {
    nvtx::ScopedRange range(kTransferNvtx, timed_range, 2 * bytes);
    const BidirSample sample = copy.run_once();
    up.push_back(sample.h2d_seconds);
    down.push_back(sample.d2h_seconds);
    overlap += sample.overlap_seconds;
    return sample.span_seconds;
  });
  if (const std::string problem = copy.verify(); !problem.empty()) {
    fail_benchmark(state, problem);
    return;
  }
  const double link = system::pcie_link_gbps(gpu.link_max);
  set_bandwidth_counters(state, bytes, up, link, "h2d_");
  set_bandwidth_counters(state, bytes, down, link, "d2h_");
  // The sum: both payloads over the span from the first start to the last end. The
  // link figure is per direction, so the sum is compared with twice it.
  set_bandwidth_counters(state, 2 * bytes, span, 2 * link);
  double span_total = 0.0;
  for (double s : span) span_total += s;
  if (span_total > 0.0) state.counters["overlap_percent"] = 100.0 * overlap / span_total;
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * 2 * bytes));
}

}  // namespace

void register_transfer_bidir(Suite& suite, const TransferOptions& t) {
  std::vector<Direction> bidir;  // one value, or none where --hdbench_directions leaves it out
  std::copy_if(t.directions.begin(), t.directions.end(), std::back_inserter(bidir),
               [](Direction d) { return d == Direction::bidir; });
  for_each_case(
      "transfer", {"direction", "memory", "engine", "bytes"},
      [&](CaseId& id, Direction, Engine engine, HostMemoryKind kind, std::size_t bytes) {
        if (!engine_uses_kind(engine, kind)) return;
        id.param("variant", "per_copy");
        const std::string name = id.name();
        suite.add_gpu(name, id.params(), [&suite, kind, engine, bytes, name](benchmark::State& state) {
          run_bidir(state, suite, kind, engine, bytes, name);
        });
      },
      named_case_axis("direction", bidir), named_case_axis("engine", t.engines),
      named_case_axis("memory", suite.options().memory_kinds), size_case_axis("bytes", t.sizes));
}

}  // namespace hdbench
