// What a CUPTI timeline says about one GPU in a stretch of time: how busy it was,
// whether copies hid behind kernels, where it sat idle, and the bandwidth the copies
// reached by the GPU's own clock (no event or launch overhead in it). Pure functions
// over records, so they are tested without a GPU.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "trace/trace_records.hpp"

namespace hdbench::trace {

struct GpuActivity {
  double window_us = 0.0;       // the time analysed: the spans' total length
  double busy_percent = 0.0;    // union of the device's GPU records, as a share of the window
  double copy_percent = 0.0;    // union of its copies (memcpy records)
  double kernel_percent = 0.0;  // union of its kernels
  // Time a copy and a kernel both ran, as a share of the shorter of the copy-busy and
  // kernel-busy times: 100 means the shorter activity hid completely behind the
  // other. 0 when either is 0.
  double copy_compute_overlap_percent = 0.0;
  double largest_idle_gap_us = 0.0;  // longest stretch of one span with nothing running, its edges included
  double total_idle_us = 0.0;        // the window minus busy
  std::size_t copies = 0;            // memcpy records that run inside a span, even in part
  std::size_t kernels = 0;           // kernel records likewise
};

// A stretch of time on the records' clock, [from_ns, to_ns].
struct TimeSpan {
  std::uint64_t from_ns = 0, to_ns = 0;
};

// NVTX convention: each timed region of a benchmark is a range named
// "<benchmark>/timed". These are such ranges that lie wholly inside [from_ns, to_ns]
// (one benchmark's window), merged where they overlap, by start: the time the
// benchmark measured, without its set-up, warm-up and verification.
std::vector<TimeSpan> timed_spans(const std::vector<Record>& records, std::uint64_t from_ns, std::uint64_t to_ns);

// The GPU records (memcpy, memset, kernel) of `device`, clipped to the spans (merged
// first where they overlap); memsets count as busy but neither copy nor kernel. The
// window is the spans' total length, idle gaps are found within each span (its edges
// included), and a record that runs in several spans counts once. Host records and
// other devices' are ignored. Throws std::invalid_argument when a span ends before it
// starts or a record of the device ends before it starts. No time gives zeros.
GpuActivity summarize_gpu_activity(const std::vector<Record>& records, int device, std::vector<TimeSpan> spans);
inline GpuActivity summarize_gpu_activity(const std::vector<Record>& records, int device, std::uint64_t from_ns,
                                          std::uint64_t to_ns) {
  return summarize_gpu_activity(records, device, std::vector<TimeSpan>{{from_ns, to_ns}});
}

// One kernel's time on the GPU in the spans, by the GPU's own clock: what a step's parts
// take with no event between them (an eager MLP step's parts, timed between CUDA events,
// came to 1.2x their planned GEMM time on the H200, where PyTorch's profiled GEMM kernels
// did not).
struct KernelTime {
  std::string name;
  std::size_t launches = 0;  // records that ran inside a span, even in part
  double total_us = 0.0;     // their time clipped to the spans
};

// The kernels of `device` in the spans (merged first where they overlap), by name, the
// most total time first, at most `top`. Throws std::invalid_argument as
// summarize_gpu_activity does.
std::vector<KernelTime> kernel_times(const std::vector<Record>& records, int device, std::vector<TimeSpan> spans,
                                     std::size_t top);

// The CUPTI-measured bandwidth of copies, in GB/s (1e9 B/s): total bytes over total
// copy duration, for the copies named `copy_kind` (e.g. "HtoD") whose host side has
// memory kind `host_kind` (the destination for "DtoH", else the source), that lie
// wholly inside one of the spans: a copy cut by a span's edge has no share of its
// bytes that could be counted honestly. All devices. nullopt when no such copy has a
// duration.
std::optional<double> copy_bandwidth_gbps(const std::vector<Record>& records, const std::string& copy_kind,
                                          MemoryKind host_kind, const std::vector<TimeSpan>& spans);
inline std::optional<double> copy_bandwidth_gbps(const std::vector<Record>& records, const std::string& copy_kind,
                                                 MemoryKind host_kind, std::uint64_t from_ns, std::uint64_t to_ns) {
  return copy_bandwidth_gbps(records, copy_kind, host_kind, std::vector<TimeSpan>{{from_ns, to_ns}});
}

}  // namespace hdbench::trace
