#include "streams/streams_description.hpp"

#include <stdexcept>

namespace hdbench {
namespace {

// The shared list's counter `name`, to give it this family's meaning or needs.
CounterDescription& counter(std::vector<CounterDescription>& counters, const std::string& name) {
  for (CounterDescription& c : counters) {
    if (c.name == name) return c;
  }
  throw std::logic_error("streams_description: no counter " + name);
}

}  // namespace

FamilyDescription streams_description() {
  FamilyDescription d{.name = "streams", .nvtx = kStreamsNvtx};
  // The variants that move a buffer through the pipeline (all but host_cost).
  const std::vector<std::string> pipelines = {"sync", "async", "pipelined", "graph", "default_stream"};
  d.params = {
      {"variant",
       ParamType::string,
       "`sync`: `cudaMemcpy` + kernel + `cudaMemcpy` on the legacy default stream; `async`: the same with "
       "`cudaMemcpyAsync` on one created stream; `pipelined`: `chunks` chunks over `streams` streams; `graph`: the "
       "pipelined work captured once into a CUDA graph and replayed; `default_stream`: a 4-stream, 16-chunk pipeline "
       "with a one-thread kernel launched after each chunk's kernel on a default stream; `host_cost`: host-side "
       "costs (`operation`)",
       {kEveryRun}},
      {"memory", ParamType::string, "`pageable`, `pinned`", pipelines},
      {"bytes", ParamType::integer, "the buffer, a multiple of 4; for `host_cost`, the memcpy call's", pipelines},
      {"compute_ratio", ParamType::number,
       "the kernel's time as a multiple of the buffer's pinned H2D copy time, set by calibrating its rounds of "
       "arithmetic",
       pipelines},
      {"copy_api", ParamType::string, "`sync`, `async`"},
      {"streams", ParamType::integer, "streams the chunks are spread over", pipelines},
      {"chunks", ParamType::integer, "as asked; `chunks_used` says how many were non-empty", pipelines},
      {"issue_order", ParamType::string,
       "`by_chunk`: each chunk's three stages together; `by_stage`: all H2D, then all kernels, then all D2H"},
      {"device", ParamType::integer, "the GPU's index"},
      {"default_stream_mode", ParamType::string,
       "`default_stream`: `legacy`: blocking streams + launches on the legacy default stream; `per_thread`: blocking "
       "streams + launches on the per-thread default stream; `non_blocking`: non-blocking streams + the legacy "
       "default stream"},
      {"side_launch", ParamType::string,
       "`default_stream`: where the one-thread launches go, `legacy_default_stream` or `per_thread_default_stream`"},
      {"operation", ParamType::string,
       "`host_cost`: `launch_empty_kernel`, `memcpy_async_call`, `<wait>/idle`, `<wait>/after_empty_kernel`"},
      {"wait", ParamType::string,
       "`host_cost`: `stream_synchronize`, `event_synchronize`, `event_query_poll`, `device_synchronize`"},
      {"after_empty_kernel", ParamType::boolean,
       "`host_cost` waits: true when the wait follows an empty kernel, false on an idle stream"},
  };
  d.counters =
      bandwidth_counters("the buffer's bytes, once, over the median time to copy it in, process it and copy it back");
  counter(d.counters, "bandwidth_GB/s").required.clear();
  counter(d.counters, "latency_us").meaning = "median time of one whole buffer";
  const std::string alone =
      " alone over the whole buffer, the fastest of 5 runs chunked as the pipeline chunks it (all chunks back to back "
      "on one stream, the variant's API and memory) and 5 as one copy / one kernel, timed both before and after the "
      "samples (a stage's speed drifts: timed only before, a pageable H2D stage on an H200 was slower than inside the "
      "samples); for the copies, the fastest of this run and every run before it of the same GPU, memory and size "
      "(a pageable copy's speed drifts between runs: an H100 host's fastest 64 MiB pageable H2D was 4.6 ms in one "
      "and 7.2 ms in the next): what `ideal_us` is fed, so no pipeline beats it (schema 1: the median of 3 chunked "
      "runs, which 4-stream pipelines beat by 5-6%)";
  const std::string chunked = ", the median of the chunked runs: what this chunking costs the stage";
  d.counters.insert(
      d.counters.end(),
      {
          {"h2d_alone_us", "the H2D copy" + alone, Better::lower},
          {"kernel_alone_us", "the kernel" + alone, Better::lower},
          {"d2h_alone_us", "the D2H copy" + alone, Better::lower},
          {"h2d_chunked_us", "the H2D copy" + chunked, Better::lower},
          {"kernel_chunked_us", "the kernel" + chunked, Better::lower},
          {"d2h_chunked_us", "the D2H copy" + chunked, Better::lower},
          {"sum_of_stages_us", "the three stages alone, added: the time with no overlap at all", Better::lower},
          {"ideal_us",
           "the best a pipeline of `chunks_used` chunks can do: the busiest stage's total plus one chunk of each "
           "other stage (fill and drain); with one copy engine H2D and D2H share it, and so they do with pageable "
           "memory, whose `cudaMemcpyAsync` is host-synchronous (the issuing thread does one copy at a time); one "
           "chunk gives the sum",
           Better::lower},
          {"fraction_of_ideal", "`ideal_us / latency_us` (1 = as good as the pipeline can be)", Better::higher},
          {"time_over_sum_of_stages", "`latency_us / sum_of_stages_us`: 1 for no overlap, lower for overlap",
           Better::lower},
          {"kernel_to_h2d_ratio", "the kernel's measured time over the H2D stage's"},
          {"kernel_rounds", "the rounds of arithmetic per word the kernel ran"},
          {"copy_engines", "the device's async engine count"},
          {"chunks_used", "chunks that carried work"},
          {"streams_used", "streams that carried work"},
          {"host_synchronous_copies",
           "1 when the ideal treats the copies as host-synchronous (pageable memory), else 0"},
          {"event_overlap_percent",
           "not `graph`: from one extra run with events around every stage, the time kernels and copies ran "
           "together as a share of the shorter of the two busy times. Events bound a stage from above (a stage "
           "waiting for its engine counts as running), so this is an upper bound; CUPTI gives exact figures",
           Better::higher},
          {"event_idle_percent",
           "not `graph`: from the same run, the time nothing ran as a share of the span (events bound a stage from "
           "above, as for `event_overlap_percent`)",
           Better::lower},
          {"graph_build_us", "`graph`: host time to capture and instantiate the graph", Better::lower},
          {"graph_nodes", "`graph`: the graph's node count"},
          {"side_launches_per_buffer",
           "`default_stream`: the one-thread launches on the default stream per buffer, all checked to have run"},
          {"per_call_us",
           "`host_cost`: median host time per call (launch, `cudaMemcpyAsync` issue) or per wait (round trip after "
           "an empty kernel, or the call on an idle stream)",
           Better::lower},
          {"per_call_best_us", "`host_cost`: the fastest host time per call or per wait", Better::lower},
      });
  for (CounterDescription& c : stopping_rule_counters()) d.counters.push_back(std::move(c));
  d.noise_groups = {"memory"};
  return d;
}

}  // namespace hdbench
