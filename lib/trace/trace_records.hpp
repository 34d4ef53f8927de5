// What a CUPTI timeline is made of, as plain data: the collector (which needs CUPTI)
// fills these in, and the writer and the analysis (which need nothing but the
// records) are tested on hand-made ones without a GPU.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace hdbench::trace {

enum class RecordKind { memcpy, memset, kernel, range, api };

// Where a copy's bytes live, as CUPTI reports it.
enum class MemoryKind { unknown, pageable, pinned, device, array, managed };

inline const char* to_string(RecordKind kind) noexcept {
  switch (kind) {
    case RecordKind::memcpy:
      return "memcpy";
    case RecordKind::memset:
      return "memset";
    case RecordKind::kernel:
      return "kernel";
    case RecordKind::range:
      return "range";
    case RecordKind::api:
      return "api";
  }
  return "unknown";
}

inline const char* to_string(MemoryKind kind) noexcept {
  switch (kind) {
    case MemoryKind::unknown:
      return "unknown";
    case MemoryKind::pageable:
      return "pageable";
    case MemoryKind::pinned:
      return "pinned";
    case MemoryKind::device:
      return "device";
    case MemoryKind::array:
      return "array";
    case MemoryKind::managed:
      return "managed";
  }
  return "unknown";
}

// A runtime function's name as a program calls it: CUPTI names callbacks with the API
// version and the per-thread default-stream variant ("cudaMemcpyAsync_ptsz_v7000"); the
// trace, its readers (Kineto's "cudaMemcpyAsync") and the profile's rules ("ends in
// Async") want "cudaMemcpyAsync".
inline std::string api_name_as_called(std::string_view name) {
  const auto strip = [&name](std::string_view tail_start, bool digits) {
    const std::size_t at = name.rfind(tail_start);
    if (at == std::string_view::npos || at == 0) return;
    const std::string_view rest = name.substr(at + tail_start.size());
    if (digits ? (!rest.empty() && rest.find_first_not_of("0123456789") == std::string_view::npos)
               : (rest == "sz" || rest == "ds")) {
      name = name.substr(0, at);
    }
  };
  strip("_v", true);
  strip("_pt", false);
  return std::string(name);
}

// The runtime calls hdbench_profile keeps (by name as called): those that move data or
// make the host wait, and the launches (the analysis attributes GPU idle time to
// "launching" and learns which host thread fed each kernel from them; Holistic Trace
// Analysis's launch statistics read them). The injection library subscribes to these
// calls only, so the list lives here once.
inline bool kept_api_call(std::string_view name) {
  return name.starts_with("cudaMemcpy") || name.starts_with("cudaMemset") ||
         name.find("Synchronize") != std::string_view::npos || name == "cudaMallocHost" || name == "cudaHostAlloc" ||
         name == "cudaHostRegister" || name == "cudaFree" || name == "cudaFreeHost" ||
         name.starts_with("cudaLaunchKernel") || name.starts_with("cudaLaunchCooperativeKernel") ||
         name == "cudaGraphLaunch";
}

// The driver's launches kept beside them (Triton and some libraries launch through the
// driver): cuLaunchKernel and cuLaunchKernelEx, by name as called.
inline bool kept_driver_call(std::string_view name) { return name == "cuLaunchKernel" || name == "cuLaunchKernelEx"; }

// Work on a GPU (memcpy, memset, kernel) lives on a device's stream; the rest on a
// host thread.
inline bool is_gpu_record(RecordKind kind) noexcept {
  return kind == RecordKind::memcpy || kind == RecordKind::memset || kind == RecordKind::kernel;
}

struct Record {
  RecordKind kind = RecordKind::kernel;
  std::uint64_t start_ns = 0, end_ns = 0;  // one clock for all records (CUPTI's); end >= start
  std::string name;  // kernel name, range name, API function name; copies: "HtoD", "DtoH", "DtoD", "HtoH", "PtoP"
  int device = -1;   // GPU records (memcpy, memset, kernel): the device index
  std::uint32_t stream = 0;                                         // GPU records: CUPTI's stream id
  std::uint64_t thread = 0;                                         // host records (range, api): OS thread id
  std::uint64_t bytes = 0;                                          // copies and memsets; a range's payload
  MemoryKind src = MemoryKind::unknown, dst = MemoryKind::unknown;  // copies
  std::uint32_t correlation = 0;                                    // links an API call to the GPU work it launched
  bool async_api = false;  // copies: issued by a cudaMemcpy*Async call (CUPTI's MEMCPY_ASYNC flag)
};

// A host thread's record (an NVTX range or a runtime call): its end clamped to its start.
inline Record host_record(RecordKind kind, const std::string& name, std::uint64_t start_ns, std::uint64_t end_ns,
                          std::uint64_t thread) {
  Record r;
  r.kind = kind;
  r.start_ns = start_ns;
  r.end_ns = end_ns > start_ns ? end_ns : start_ns;
  r.name = name;
  r.thread = thread;
  return r;
}

struct TraceMetadata {
  std::string host_name;
  std::vector<std::string> gpu_names;                 // index = device
  std::map<std::uint32_t, std::string> stream_names;  // CUPTI stream id -> name (e.g. "h2d", "loader/copy")
  std::map<std::uint64_t, std::string> thread_names;  // OS thread id -> name (e.g. "loader/worker 3")
  std::uint64_t origin_ns = 0;                        // time zero of the trace (start of the run)
  int rank = 0;  // the process's rank in a distributed job (Kineto's distributedInfo); 0 alone
};

// Where a recorder hands its records while it records, batch by batch (a CUPTI
// buffer, a run of NVTX ranges), from any thread: memory then stays bounded by a
// batch instead of growing with the run.
class RecordSink {
 public:
  virtual ~RecordSink() = default;
  // Once, before any records: the time zero of the trace.
  virtual void started(std::uint64_t origin_ns) = 0;
  // May take the records' contents; calls may come from several threads.
  virtual void consume(std::vector<Record>& records) = 0;
};

}  // namespace hdbench::trace
