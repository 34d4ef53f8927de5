// The CUPTI timeline's CPU half on hand-made records: the Chrome Trace writer (units,
// processes and tracks, args, nesting, the origin, the atomic write) and the
// activity analysis (busy, overlap, gaps, window clipping, timed spans, copy
// bandwidth) and the report rows it makes per benchmark.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <stdexcept>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "trace/trace_analysis.hpp"
#include "trace/trace_report.hpp"
#include "trace/trace_writer.hpp"

namespace hdbench::trace {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

constexpr std::uint64_t kOrigin = 5'000'000'000;  // CUPTI time is far from zero

// `offset` µs after the origin, so timelines read in µs. Exact: every time here is a
// whole number of ns below 2^53.
std::uint64_t us(double offset) { return static_cast<std::uint64_t>(std::llround(kOrigin + offset * 1e3)); }

Record gpu(RecordKind kind, int device, std::uint32_t stream, std::uint64_t start, std::uint64_t end) {
  return {.kind = kind, .start_ns = start, .end_ns = end, .name = "k", .device = device, .stream = stream};
}

Record copy(const char* kind, std::uint64_t start, std::uint64_t end, std::uint64_t bytes, MemoryKind src,
            MemoryKind dst, int device = 0) {
  Record r = gpu(RecordKind::memcpy, device, 7, start, end);
  std::tie(r.name, r.bytes, r.src, r.dst) = std::tuple(kind, bytes, src, dst);
  return r;
}

Record host(RecordKind kind, std::uint64_t thread, std::uint64_t start, std::uint64_t end, std::string name = "r") {
  return {.kind = kind, .start_ns = start, .end_ns = end, .name = std::move(name), .thread = thread};
}

TraceMetadata metadata() {
  return {"node1", {"NVIDIA H200", "NVIDIA H100"}, {{7, "h2d"}}, {{100, "loader/worker 3"}}, kOrigin};
}

// A trace read back through its text, as a viewer would.
json round_trip(const std::vector<Record>& records, const TraceMetadata& m = metadata()) {
  return json::parse(to_chrome_trace(records, m).dump());
}

// The metadata event `name` of (pid, tid), or of pid alone when tid < 0.
std::map<std::pair<int, int>, std::string> names_of(const json& trace, const char* name) {
  std::map<std::pair<int, int>, std::string> names;
  for (const json& e : trace["traceEvents"]) {
    if (e["ph"] == "M" && e["name"] == name) names[{e["pid"], e.value("tid", -1)}] = e.at("args").at("name");
  }
  return names;
}

// (pid, tid) of the track called `track` in the process called `process`.
std::pair<int, int> track(const json& trace, const std::string& process, const std::string& track) {
  int pid = -1;
  for (const auto& [key, name] : names_of(trace, "process_name")) {
    if (name == process) pid = key.first;
  }
  for (const auto& [key, name] : names_of(trace, "thread_name")) {
    if (key.first == pid && name == track) return key;
  }
  ADD_FAILURE() << "no track '" << track << "' in process '" << process << "'";
  return {-1, -1};
}

std::vector<json> events_on(const json& trace, std::pair<int, int> where) {
  std::vector<json> events;
  for (const json& e : trace["traceEvents"]) {
    if (e["ph"] == "X" && e["pid"] == where.first && e["tid"] == where.second) events.push_back(e);
  }
  return events;
}

// Walks each track's X events as Perfetto does: sorted by (start asc, end desc),
// every event must end before the innermost open one ends or start after it ends.
void expect_nested(const json& trace) {
  std::map<std::pair<int, int>, std::vector<std::pair<long long, long long>>> tracks;
  for (const json& e : trace["traceEvents"]) {
    if (e["ph"] != "X") continue;
    const long long start = std::llround(e["ts"].get<double>() * 1e3);
    tracks[{e["pid"], e["tid"]}].push_back({start, start + std::llround(e["dur"].get<double>() * 1e3)});
  }
  for (auto& [where, spans] : tracks) {
    std::sort(spans.begin(), spans.end(),
              [](auto& a, auto& b) { return a.first != b.first ? a.first < b.first : a.second > b.second; });
    std::vector<long long> open;
    for (const auto& [start, end] : spans) {
      while (!open.empty() && open.back() <= start) open.pop_back();
      EXPECT_TRUE(open.empty() || end <= open.back())
          << "track " << where.first << "/" << where.second << ": [" << start << ", " << end
          << "] crosses the end of an enclosing event at " << open.back();
      open.push_back(end);
    }
  }
}

TEST(TraceRecords, NamesAreSpelledAsTheTraceShowsThem) {
  std::string kinds;
  for (auto k : {RecordKind::memcpy, RecordKind::memset, RecordKind::kernel, RecordKind::range, RecordKind::api}) {
    kinds += std::string(to_string(k)) + " ";
  }
  EXPECT_EQ(kinds, "memcpy memset kernel range api ");
  std::string memory;
  for (auto k : {MemoryKind::unknown, MemoryKind::pageable, MemoryKind::pinned, MemoryKind::device, MemoryKind::array,
                 MemoryKind::managed}) {
    memory += std::string(to_string(k)) + " ";
  }
  EXPECT_EQ(memory, "unknown pageable pinned device array managed ");
}

TEST(TraceWriter, IsAChromeTraceInMicrosecondsFromTheOrigin) {
  const json trace = round_trip(
      {gpu(RecordKind::kernel, 0, 7, us(1.5), us(4)), gpu(RecordKind::kernel, 0, 7, us(123'456.789), us(123'456.790))});
  EXPECT_EQ(trace["displayTimeUnit"], "ns");
  EXPECT_EQ(trace["otherData"]["host_name"], "node1");
  EXPECT_EQ(trace["otherData"]["gpus"], json({"NVIDIA H200", "NVIDIA H100"}));
  EXPECT_EQ(trace["otherData"]["origin_ns"], kOrigin);
  const auto events = events_on(trace, track(trace, "GPU 0: NVIDIA H200", "h2d"));
  ASSERT_EQ(events.size(), 2u);
  EXPECT_EQ(events[0]["ts"].get<double>(), 1.5);  // 1'500 ns after the origin
  EXPECT_EQ(events[0]["dur"].get<double>(), 2.5);
  EXPECT_EQ(events[1]["ts"].get<double>(), 123'456.789);
  EXPECT_EQ(events[1]["dur"].get<double>(), 0.001);
  EXPECT_EQ(events[0]["cat"], "kernel");
  EXPECT_EQ(events[0]["name"], "k");
}

TEST(TraceWriter, OneProcessPerGpuAndOneForTheHostFirst) {
  const json trace = round_trip({gpu(RecordKind::kernel, 1, 3, us(0), us(5))});
  std::map<std::string, int> pids;
  for (const auto& [key, name] : names_of(trace, "process_name")) pids[name] = key.first;
  EXPECT_EQ(pids.size(), 3u);  // GPU 0 has no records but is named in the metadata
  ASSERT_TRUE(pids.count("host node1") && pids.count("GPU 0: NVIDIA H200") && pids.count("GPU 1: NVIDIA H100"));
  std::map<int, int> sort_index;
  for (const json& e : trace["traceEvents"]) {
    if (e["name"] == "process_sort_index") sort_index[e["pid"]] = e.at("args").at("sort_index");
  }
  EXPECT_LT(sort_index[pids["host node1"]], sort_index[pids["GPU 0: NVIDIA H200"]]);
  EXPECT_LT(sort_index[pids["GPU 0: NVIDIA H200"]], sort_index[pids["GPU 1: NVIDIA H100"]]);
  EXPECT_EQ(events_on(trace, track(trace, "GPU 1: NVIDIA H100", "stream 3")).size(), 1u);
}

TEST(TraceWriter, ATrackPerStreamAndThreadWithApiCallsApart) {
  Record payload = host(RecordKind::range, 100, us(0), us(9)), call = host(RecordKind::api, 100, us(5), us(6), "cuX");
  payload.bytes = 4096;
  call.correlation = 42;
  const json trace =
      round_trip({gpu(RecordKind::kernel, 0, 7, us(0), us(5)), gpu(RecordKind::kernel, 0, 13, us(0), us(5)), payload,
                  call, host(RecordKind::range, 200, us(0), us(9))});
  const std::string gpu0 = "GPU 0: NVIDIA H200", cpu = "host node1";
  EXPECT_EQ(events_on(trace, track(trace, gpu0, "h2d")).size(), 1u);
  EXPECT_EQ(events_on(trace, track(trace, gpu0, "stream 13")).size(), 1u);
  const auto ranges = events_on(trace, track(trace, cpu, "loader/worker 3"));
  ASSERT_EQ(ranges.size(), 1u);
  EXPECT_EQ(ranges[0].at("args").at("bytes"), 4096);
  const auto unnamed = events_on(trace, track(trace, cpu, "thread 200"));
  ASSERT_EQ(unnamed.size(), 1u);
  EXPECT_FALSE(unnamed[0].contains("args"));  // no payload, no args
  const auto calls = events_on(trace, track(trace, cpu, "loader/worker 3 (CUDA API)"));
  ASSERT_EQ(calls.size(), 1u);
  EXPECT_EQ(calls[0]["cat"], "cuda_runtime");  // Kineto's category
  EXPECT_EQ(calls[0].at("args").at("correlation"), 42);
  // Tids are unique in the file, so no viewer merges two tracks.
  std::set<int> tids;
  for (const auto& [key, name] : names_of(trace, "thread_name")) EXPECT_TRUE(tids.insert(key.second).second) << name;
  EXPECT_EQ(tids.size(), 5u);
}

TEST(TraceWriter, CopiesCarryBytesBandwidthAndMemoryKindsUnderKinetosNames) {
  const json trace = round_trip({copy("HtoD", us(0), us(100), 1'000'000, MemoryKind::pinned, MemoryKind::device),
                                 copy("DtoH", us(200), us(200), 64, MemoryKind::device, MemoryKind::pageable)});
  const auto events = events_on(trace, track(trace, "GPU 0: NVIDIA H200", "h2d"));
  ASSERT_EQ(events.size(), 2u);
  // As the PyTorch profiler (Kineto) names them, so Holistic Trace Analysis reads them.
  EXPECT_EQ(events[0]["cat"], "gpu_memcpy");
  EXPECT_EQ(events[0]["name"], "Memcpy HtoD (Pinned -> Device)");
  EXPECT_EQ(events[1]["name"], "Memcpy DtoH (Device -> Pageable)");
  EXPECT_EQ(events[0]["args"], json({{"device", 0},
                                     {"stream", 7},
                                     {"bytes", 1'000'000},
                                     {"memory bandwidth (GB/s)", 10.0},  // 1e6 B in 100 µs
                                     {"src", "pinned"},
                                     {"dst", "device"}}));
  // No duration, no bandwidth.
  EXPECT_EQ(events[1]["args"],
            json({{"device", 0}, {"stream", 7}, {"bytes", 64}, {"src", "device"}, {"dst", "pageable"}}));
}

TEST(TraceWriter, PartlyOverlappingHostRecordsAreCutToNest) {
  // Ranges 0-100 and 50-150 on one thread: the second is cut to 50-100. 200-300
  // holds 210-250 and 220-230 twice, already nested. The API call crosses the
  // ranges' edges but has a track of its own, so it is not cut.
  std::vector<Record> records;
  for (auto [start, end] : {std::pair{0, 100}, {50, 150}, {200, 300}, {220, 230}, {210, 250}, {220, 230}}) {
    records.push_back(host(RecordKind::range, 100, us(start), us(end)));
  }
  records.push_back(host(RecordKind::api, 100, us(90), us(120), "cudaFree"));
  const json trace = round_trip(records);
  expect_nested(trace);
  EXPECT_EQ(trace["otherData"]["trimmed_to_nest"], 1);
  const auto ranges = events_on(trace, track(trace, "host node1", "loader/worker 3"));
  ASSERT_EQ(ranges.size(), 6u);  // all kept
  EXPECT_EQ(ranges[1]["ts"].get<double>(), 50.0);
  EXPECT_EQ(ranges[1]["dur"].get<double>(), 50.0);
  EXPECT_EQ(ranges[1].at("args").at("trimmed_us").get<double>(), 50.0);
  const auto calls = events_on(trace, track(trace, "host node1", "loader/worker 3 (CUDA API)"));
  ASSERT_EQ(calls.size(), 1u);
  EXPECT_EQ(calls[0]["dur"].get<double>(), 30.0);
}

TEST(TraceWriter, SkewedRecordsOnAStreamAreCutToNestKeepingTheirBandwidth) {
  const json trace = round_trip({gpu(RecordKind::kernel, 0, 7, us(0), us(100)),
                                 copy("HtoD", us(90), us(190), 1'000'000, MemoryKind::pinned, MemoryKind::device),
                                 gpu(RecordKind::kernel, 0, 7, us(95), us(300))});
  expect_nested(trace);
  EXPECT_EQ(trace["otherData"]["trimmed_to_nest"], 2);
  const auto events = events_on(trace, track(trace, "GPU 0: NVIDIA H200", "h2d"));
  ASSERT_EQ(events.size(), 3u);
  EXPECT_EQ(events[1]["dur"].get<double>(), 10.0);  // the copy, cut to the first kernel's end
  EXPECT_EQ(events[1].at("args").at("memory bandwidth (GB/s)").get<double>(), 10.0);  // from its own 100 µs
  EXPECT_EQ(events[2]["dur"].get<double>(), 5.0);                                     // inside the cut copy
  EXPECT_EQ(events[2].at("args").at("trimmed_us").get<double>(), 200.0);
}

TEST(TraceWriter, RecordsBeforeTheOriginAreDroppedOrCutToIt) {
  const json trace =
      round_trip({copy("HtoD", us(-0.3), us(-0.1), 100, MemoryKind::pinned, MemoryKind::device),  // dropped
                  copy("HtoD", us(-1), us(1), 4'000, MemoryKind::pinned, MemoryKind::device),     // cut
                  gpu(RecordKind::kernel, 0, 9, us(2), us(1))});  // ends before it starts: zero duration
  EXPECT_EQ(trace["otherData"]["dropped_before_origin"], 1);
  const auto events = events_on(trace, track(trace, "GPU 0: NVIDIA H200", "h2d"));
  ASSERT_EQ(events.size(), 1u);
  EXPECT_EQ(events[0]["ts"].get<double>(), 0.0);
  EXPECT_EQ(events[0]["dur"].get<double>(), 1.0);
  EXPECT_EQ(events[0].at("args").at("memory bandwidth (GB/s)").get<double>(), 2.0);  // 4000 B over its whole 2 µs
  const auto backward = events_on(trace, track(trace, "GPU 0: NVIDIA H200", "stream 9"));
  ASSERT_EQ(backward.size(), 1u);
  EXPECT_EQ(backward[0]["ts"].get<double>(), 2.0);
  EXPECT_EQ(backward[0]["dur"].get<double>(), 0.0);
}

TEST(TraceWriter, WritesAtomicallyOverAnOlderFile) {
  const fs::path dir = fs::temp_directory_path() / ("hdbench_trace_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  const fs::path path = dir / "trace.json";
  std::ofstream(path) << "old";
  // A name that is not UTF-8 (NVTX takes any bytes) is written with U+FFFD.
  write_chrome_trace(path, {host(RecordKind::range, 100, us(0), us(1), "bad \xff")}, metadata());
  std::ifstream in(path);
  const json trace = json::parse(in);
  const auto ranges = events_on(trace, track(trace, "host node1", "loader/worker 3"));
  ASSERT_EQ(ranges.size(), 1u);
  EXPECT_EQ(ranges[0]["name"], "bad \uFFFD");
  std::vector<std::string> left;
  for (const auto& entry : fs::directory_iterator(dir)) left.push_back(entry.path().filename().string());
  EXPECT_EQ(left, std::vector<std::string>{"trace.json"});  // no ".trace.json.tmp-<pid>"
  fs::remove_all(dir);
}

TEST(TraceAnalysis, TwoCopiesAndAKernelWithAKnownOverlap) {
  // Copies 0-3 and 2-5 (busy 0-5), kernel 4-8; window 0-10.
  const GpuActivity a = summarize_gpu_activity({copy("HtoD", us(0), us(3), 1, MemoryKind::pinned, MemoryKind::device),
                                                copy("DtoH", us(2), us(5), 1, MemoryKind::device, MemoryKind::pinned),
                                                gpu(RecordKind::kernel, 0, 9, us(4), us(8))},
                                               0, us(0), us(10));
  EXPECT_DOUBLE_EQ(a.window_us, 10.0);
  EXPECT_DOUBLE_EQ(a.busy_percent, 80.0);
  EXPECT_DOUBLE_EQ(a.copy_percent, 50.0);
  EXPECT_DOUBLE_EQ(a.kernel_percent, 40.0);
  EXPECT_DOUBLE_EQ(a.copy_compute_overlap_percent, 25.0);  // 4-5 of the kernel's 4
  EXPECT_DOUBLE_EQ(a.total_idle_us, 2.0);
  EXPECT_DOUBLE_EQ(a.largest_idle_gap_us, 2.0);  // 8-10
  EXPECT_EQ(a.copies, 2u);
  EXPECT_EQ(a.kernels, 1u);
}

TEST(TraceAnalysis, GapsAtTheWindowEdgesCountAndBackwardInputIsRejected) {
  const Record early = gpu(RecordKind::kernel, 0, 7, us(3), us(5)), late = gpu(RecordKind::kernel, 0, 7, us(6), us(8));
  EXPECT_DOUBLE_EQ(summarize_gpu_activity({early, late}, 0, us(0), us(12)).largest_idle_gap_us, 4.0);  // 8-12
  EXPECT_DOUBLE_EQ(summarize_gpu_activity({early, late}, 0, us(-2), us(9)).largest_idle_gap_us, 5.0);  // -2-3
  const GpuActivity empty = summarize_gpu_activity({}, 0, us(0), us(7));
  EXPECT_DOUBLE_EQ(empty.largest_idle_gap_us, 7.0);
  EXPECT_DOUBLE_EQ(empty.total_idle_us, 7.0);
  EXPECT_DOUBLE_EQ(empty.busy_percent, 0.0);
  EXPECT_DOUBLE_EQ(empty.copy_compute_overlap_percent, 0.0);
  EXPECT_THROW(summarize_gpu_activity({}, 0, us(2), us(1)), std::invalid_argument);
  EXPECT_THROW(summarize_gpu_activity({gpu(RecordKind::kernel, 0, 7, us(2), us(1))}, 0, us(0), us(3)),
               std::invalid_argument);
  EXPECT_DOUBLE_EQ(summarize_gpu_activity({}, 0, us(1), us(1)).window_us, 0.0);
}

TEST(TraceAnalysis, ClipsRecordsToTheWindow) {
  // Window 10-20: a kernel 5-15 counts 10-15, a copy 18-25 counts 18-20; a kernel
  // 0-8 and a copy 20-30 (touching the end) are outside.
  const GpuActivity a =
      summarize_gpu_activity({gpu(RecordKind::kernel, 0, 7, us(5), us(15)),
                              copy("HtoD", us(18), us(25), 1, MemoryKind::pinned, MemoryKind::device),
                              gpu(RecordKind::kernel, 0, 7, us(0), us(8)),
                              copy("HtoD", us(20), us(30), 1, MemoryKind::pinned, MemoryKind::device)},
                             0, us(10), us(20));
  EXPECT_DOUBLE_EQ(a.busy_percent, 70.0);
  EXPECT_DOUBLE_EQ(a.kernel_percent, 50.0);
  EXPECT_DOUBLE_EQ(a.copy_percent, 20.0);
  EXPECT_DOUBLE_EQ(a.largest_idle_gap_us, 3.0);  // 15-18
  EXPECT_DOUBLE_EQ(a.total_idle_us, 3.0);
  EXPECT_EQ(a.kernels, 1u);
  EXPECT_EQ(a.copies, 1u);
}

TEST(TraceAnalysis, KernelTimesAreByNameClippedToTheSpansMostFirst) {
  // Spans 0-10 and 20-30. gemm: 1-4 and 21-29 (3 + 8 us); relu: 5-6 and 8-12 (1 + 2 us
  // clipped); loss: 12-18, between the spans, is left out; a kernel of GPU 1 and a copy too.
  auto kernel = [](const char* name, double from, double to, int device = 0) {
    Record r = gpu(RecordKind::kernel, device, 7, us(from), us(to));
    r.name = name;
    return r;
  };
  const std::vector<Record> records{kernel("gemm", 1, 4),
                                    kernel("relu", 5, 6),
                                    kernel("relu", 8, 12),
                                    kernel("loss", 12, 18),
                                    kernel("gemm", 21, 29),
                                    kernel("gemm", 2, 9, 1),
                                    copy("HtoD", us(0), us(10), 1, MemoryKind::pinned, MemoryKind::device)};
  const std::vector<KernelTime> k = kernel_times(records, 0, {{us(20), us(30)}, {us(0), us(10)}}, 5);
  ASSERT_EQ(k.size(), 2u);
  EXPECT_EQ(k[0].name, "gemm");
  EXPECT_EQ(k[0].launches, 2u);
  EXPECT_DOUBLE_EQ(k[0].total_us, 11.0);
  EXPECT_EQ(k[1].name, "relu");
  EXPECT_EQ(k[1].launches, 2u);
  EXPECT_DOUBLE_EQ(k[1].total_us, 3.0);
  EXPECT_EQ(kernel_times(records, 0, {{us(0), us(10)}, {us(20), us(30)}}, 1).size(), 1u);  // the top one only
  EXPECT_TRUE(kernel_times(records, 0, {}, 5).empty());
  EXPECT_THROW(kernel_times({kernel("bad", 3, 2)}, 0, {{us(0), us(5)}}, 5), std::invalid_argument);
}

TEST(TraceAnalysis, IgnoresOtherDevicesAndHostRecordsAndCountsMemsetsAsBusyOnly) {
  const GpuActivity a =
      summarize_gpu_activity({gpu(RecordKind::kernel, 1, 7, us(0), us(10)), host(RecordKind::range, 100, us(0), us(10)),
                              host(RecordKind::api, 100, us(0), us(10)), gpu(RecordKind::memset, 0, 7, us(2), us(4))},
                             0, us(0), us(10));
  EXPECT_DOUBLE_EQ(a.busy_percent, 20.0);
  EXPECT_DOUBLE_EQ(a.copy_percent, 0.0);
  EXPECT_DOUBLE_EQ(a.kernel_percent, 0.0);
  EXPECT_EQ(a.kernels + a.copies, 0u);
  EXPECT_DOUBLE_EQ(a.largest_idle_gap_us, 6.0);
}

TEST(TraceAnalysis, CopyBandwidthIsBytesOverCopyTime) {
  const std::vector<Record> records{
      copy("HtoD", us(0), us(100), 1'000'000, MemoryKind::pinned, MemoryKind::device),
      copy("HtoD", us(200), us(400), 3'000'000, MemoryKind::pinned, MemoryKind::device, 1),
      copy("HtoD", us(500), us(600), 500'000, MemoryKind::pageable, MemoryKind::device),
      copy("DtoH", us(0), us(50), 1'000'000, MemoryKind::device, MemoryKind::pinned),
      copy("DtoD", us(0), us(10), 1'000'000, MemoryKind::device, MemoryKind::device),
      copy("HtoD", us(950), us(1'100), 9'000'000, MemoryKind::pinned, MemoryKind::device)};  // cut by the window
  const auto bandwidth = [&](const char* kind, MemoryKind host_kind) {
    return copy_bandwidth_gbps(records, kind, host_kind, us(0), us(1'000));
  };
  EXPECT_DOUBLE_EQ(bandwidth("HtoD", MemoryKind::pinned).value(), 4e6 / 3e5);  // 4 MB in 300 µs, both devices
  EXPECT_DOUBLE_EQ(bandwidth("HtoD", MemoryKind::pageable).value(), 5.0);
  EXPECT_DOUBLE_EQ(bandwidth("DtoH", MemoryKind::pinned).value(), 20.0);  // the host side of DtoH is dst
  EXPECT_DOUBLE_EQ(bandwidth("DtoD", MemoryKind::device).value(), 100.0);
  EXPECT_FALSE(bandwidth("DtoH", MemoryKind::pageable).has_value());
  EXPECT_FALSE(bandwidth("PtoP", MemoryKind::device).has_value());
  EXPECT_FALSE(copy_bandwidth_gbps(records, "HtoD", MemoryKind::pinned, us(2'000), us(3'000)).has_value());
  EXPECT_FALSE(copy_bandwidth_gbps({copy("HtoD", us(1), us(1), 64, MemoryKind::pinned, MemoryKind::device)}, "HtoD",
                                   MemoryKind::pinned, us(0), us(2))
                   .has_value());  // no duration to divide by
}

TEST(TraceAnalysis, TimedSpansAreTheTimedRangesInsideTheWindowMerged) {
  const std::vector<Record> records{
      host(RecordKind::range, 1, us(10), us(20), "a/timed"),  host(RecordKind::range, 1, us(15), us(25), "a/timed"),
      host(RecordKind::range, 1, us(30), us(40), "a/verify"), host(RecordKind::range, 1, us(50), us(60), "a/timed"),
      host(RecordKind::api, 1, us(62), us(64), "x/timed"),    host(RecordKind::range, 1, us(90), us(110), "b/timed"),
      host(RecordKind::range, 1, us(70), us(70), "a/timed"),  gpu(RecordKind::kernel, 0, 7, us(0), us(100))};
  const std::vector<TimeSpan> spans = timed_spans(records, us(0), us(100));
  ASSERT_EQ(spans.size(), 3u);  // 10-25 (two ranges joined), 50-60, 70-70; not the one crossing the window's end
  EXPECT_EQ(spans[0].from_ns, us(10));
  EXPECT_EQ(spans[0].to_ns, us(25));
  EXPECT_EQ(spans[1].from_ns, us(50));
  EXPECT_EQ(spans[1].to_ns, us(60));
  EXPECT_EQ(spans[2].from_ns, us(70));
  EXPECT_TRUE(timed_spans(records, us(200), us(300)).empty());
}

TEST(TraceAnalysis, SeveralSpansAddUpTheirTimeAndCountARecordOnce) {
  // Spans 0-10 and 20-30. A kernel 5-25 runs in both (5 µs each); a copy 22-24 hides
  // under it; a copy 12-14 runs between the spans and is left out.
  const std::vector<Record> records{gpu(RecordKind::kernel, 0, 7, us(5), us(25)),
                                    copy("HtoD", us(22), us(24), 1, MemoryKind::pinned, MemoryKind::device),
                                    copy("HtoD", us(12), us(14), 1, MemoryKind::pinned, MemoryKind::device)};
  const GpuActivity a = summarize_gpu_activity(records, 0, {{us(20), us(30)}, {us(0), us(10)}});
  EXPECT_DOUBLE_EQ(a.window_us, 20.0);
  EXPECT_DOUBLE_EQ(a.busy_percent, 50.0);
  EXPECT_DOUBLE_EQ(a.kernel_percent, 50.0);
  EXPECT_DOUBLE_EQ(a.copy_percent, 10.0);
  EXPECT_DOUBLE_EQ(a.copy_compute_overlap_percent, 100.0);
  EXPECT_DOUBLE_EQ(a.largest_idle_gap_us, 5.0);  // 0-5 and 25-30: the stretch between spans is not idle time
  EXPECT_DOUBLE_EQ(a.total_idle_us, 10.0);
  EXPECT_EQ(a.kernels, 1u);
  EXPECT_EQ(a.copies, 1u);
  // Overlapping spans are one span, not time counted twice.
  const GpuActivity joined = summarize_gpu_activity(records, 0, {{us(0), us(10)}, {us(4), us(10)}});
  EXPECT_DOUBLE_EQ(joined.window_us, 10.0);
  EXPECT_DOUBLE_EQ(joined.busy_percent, 50.0);
  EXPECT_THROW(summarize_gpu_activity(records, 0, {{us(0), us(10)}, {us(9), us(8)}}), std::invalid_argument);
  EXPECT_DOUBLE_EQ(summarize_gpu_activity(records, 0, std::vector<TimeSpan>{}).window_us, 0.0);
}

TEST(TraceAnalysis, CopyBandwidthCountsCopiesWhollyInsideOneSpan) {
  const std::vector<Record> records{
      copy("HtoD", us(0), us(10), 100'000, MemoryKind::pinned, MemoryKind::device),   // in span 1
      copy("HtoD", us(20), us(30), 300'000, MemoryKind::pinned, MemoryKind::device),  // in span 2
      copy("HtoD", us(12), us(14), 900'000, MemoryKind::pinned, MemoryKind::device),  // between the spans
      copy("HtoD", us(8), us(22), 900'000, MemoryKind::pinned, MemoryKind::device)};  // across the gap
  EXPECT_DOUBLE_EQ(
      copy_bandwidth_gbps(records, "HtoD", MemoryKind::pinned, {{us(0), us(10)}, {us(20), us(30)}}).value(), 20.0);
}

TEST(TraceReport, RowsCoverEachBenchmarksTimedRangesOrElseItsWholeWindow) {
  const std::vector<Record> records{// "copy" (window 0-100): two timed samples of a 1 MB copy in 20 µs each (50 GB/s),
                                    // then a verification copy at 100 GB/s that the row must leave out.
                                    host(RecordKind::range, 1, us(10), us(30), "copy/timed"),
                                    host(RecordKind::range, 1, us(40), us(60), "copy/timed"),
                                    copy("HtoD", us(10), us(30), 1'000'000, MemoryKind::pinned, MemoryKind::device),
                                    copy("HtoD", us(40), us(60), 1'000'000, MemoryKind::pinned, MemoryKind::device),
                                    host(RecordKind::range, 1, us(70), us(90), "copy/verify"),
                                    copy("HtoD", us(75), us(85), 1'000'000, MemoryKind::pinned, MemoryKind::device),
                                    // "kernel" (window 200-300) has no timed range: its whole window, half busy.
                                    gpu(RecordKind::kernel, 0, 7, us(210), us(260))};
  const std::vector<BenchmarkWindow> windows{
      {"copy", us(0), us(100)}, {"kernel", us(200), us(300)}, {"idle", us(400), us(500)}};
  const json benchmarks = json::array(
      {{{"name", "copy/manual_time"}, {"run_name", "copy/manual_time"}, {"counters", {{"bandwidth_GB/s", 48.0}}}}});
  const json rows = gpu_activity_rows(records, windows, 0, benchmarks);
  ASSERT_EQ(rows.size(), 2u);  // "idle" had no GPU work
  const json& timed = rows[0];
  EXPECT_EQ(timed["benchmark"], "copy");
  EXPECT_EQ(timed["measured_over"], "timed ranges");
  EXPECT_EQ(timed["timed_ranges"], 2);
  EXPECT_DOUBLE_EQ(timed["window_us"].get<double>(), 40.0);
  EXPECT_DOUBLE_EQ(timed["gpu_busy_percent"].get<double>(), 100.0);
  EXPECT_EQ(timed["copies"], 2);
  EXPECT_DOUBLE_EQ(timed["cupti_copy_GB/s"]["HtoD/pinned"].get<double>(), 50.0);
  EXPECT_FALSE(timed["cupti_copy_GB/s"].contains("HtoD/pageable"));
  EXPECT_DOUBLE_EQ(timed["event_timed_GB/s"].get<double>(), 48.0);
  const json& whole = rows[1];
  EXPECT_EQ(whole["benchmark"], "kernel");
  EXPECT_EQ(whole["measured_over"], "whole benchmark");
  EXPECT_EQ(whole["timed_ranges"], 0);
  EXPECT_DOUBLE_EQ(whole["window_us"].get<double>(), 100.0);
  EXPECT_DOUBLE_EQ(whole["gpu_busy_percent"].get<double>(), 50.0);
  EXPECT_DOUBLE_EQ(whole["largest_idle_gap_us"].get<double>(), 40.0);
  EXPECT_FALSE(whole.contains("event_timed_GB/s"));
}

TEST(ApiNames, CuptisVersionAndStreamTailsAreDropped) {
  EXPECT_EQ(api_name_as_called("cudaMemcpyAsync_v3020"), "cudaMemcpyAsync");
  EXPECT_EQ(api_name_as_called("cudaMemcpyAsync_ptsz_v7000"), "cudaMemcpyAsync");
  EXPECT_EQ(api_name_as_called("cudaStreamSynchronize_ptds_v7000"), "cudaStreamSynchronize");
  EXPECT_EQ(api_name_as_called("cudaLaunchKernel"), "cudaLaunchKernel");
  EXPECT_EQ(api_name_as_called("cudaGraphLaunch_v10000"), "cudaGraphLaunch");
  // Only a tail of the right shape goes: names with "_v" or "_pt" inside stay whole.
  EXPECT_EQ(api_name_as_called("cudaMemcpy_vX"), "cudaMemcpy_vX");
  EXPECT_EQ(api_name_as_called("cuda_ptr_v"), "cuda_ptr_v");
  EXPECT_EQ(api_name_as_called("_v100"), "_v100");
}

}  // namespace
}  // namespace hdbench::trace
