// libhdbench_inject.so: records another program's CUDA activity for hdbench_profile.
//
// The CUDA driver loads it into every process that initialises CUDA when
// CUDA_INJECTION64_PATH names it (children inherit the variable, so they are recorded
// too), and calls InitializeInjection. NVTX loads it when NVTX_INJECTION64_PATH names
// it and calls InitializeInjectionNvtx2: the program's push/pop ranges are kept.
//
// What it records, and what the program pays for it:
// - the GPU's work (copies, memsets, kernels) from CUPTI's activity records, delivered
//   by CUPTI on a thread of its own;
// - the runtime calls the analysis uses (trace_records.hpp's kept_api_call: copies,
//   memsets, synchronisations, pinned allocations and frees, and the launches
//   cudaLaunchKernel*, cudaLaunchCooperativeKernel*, cudaGraphLaunch), plus the driver's
//   cuLaunchKernel/cuLaunchKernelEx when not inside one of those, through CUPTI's
//   callback API subscribed to those calls only (api_callbacks): no other runtime call
//   a framework makes is seen. A call's record goes into its thread's own buffer, as
//   does an NVTX range's (host_records), and reaches the sink 4096 at a time or when
//   the thread ends;
// - the sink (profile_sink) only queues; a writer thread of the library's own formats
//   and writes the files, so neither the program's threads nor CUPTI's format JSON.
// Host records carry the OS thread id (gettid), the id NVTX ranges and thread names use.
//
// In $HDBENCH_PROFILE_DIR each process writes
//   records-<pid>.jsonl  one JSON object per line, appended batch by batch and flushed,
//                        so a killed process leaves every whole line it wrote: first a
//                        "process" line (origin_ns: when recording began, on the
//                        records' clock; clock: that clock read beside CLOCK_MONOTONIC,
//                        as the end line's is again), then "copy", "memset", "kernel", "api" and
//                        "range" lines, and last, when the process ends normally, an
//                        "end" line (written at exit, after every thread's buffer).
//   trace-<pid>.json     the Chrome/Perfetto trace of the first records, in Kineto's
//                        names, renamed into place only when whole; it stops taking
//                        records at $HDBENCH_PROFILE_TRACE_MB of text (default 200), so a
//                        long run's trace stays a file a viewer opens.
// Records beyond $HDBENCH_PROFILE_TRACE_BUDGET (default 2,000,000) are counted, not kept,
// in either. $HDBENCH_PROFILE_RECORD (gpu,api,nvtx: all by default; any subset, or none)
// turns parts of the recording off, to time what each costs the program
// (tools/profile_overhead.py); the process line says which were on ("recorded_parts").
// The line format is docs/profiling.md's; tools/hdreport/profile/records.py reads it.
#define NVTX_NO_IMPL  // a tool: NVTX's types and declarations only
#include <cuda.h>
#include <cupti.h>
#include <dlfcn.h>
#include <fmt/format.h>
#include <nvtx3/nvToolsExt.h>
#include <unistd.h>

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "trace/api_callbacks.hpp"
#include "trace/host_records.hpp"
#include "trace/profile_sink.hpp"
#include "trace/trace_recorder.hpp"
#include "trace/trace_records.hpp"

namespace {

using hdbench::trace::ApiCallbacks;
using hdbench::trace::HostRecordBuffers;
using hdbench::trace::ProfileSink;

std::string command_line() {
  std::ifstream in("/proc/self/cmdline", std::ios::binary);
  std::string raw((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  while (!raw.empty() && raw.back() == '\0') raw.pop_back();
  for (char& c : raw) {
    if (c == '\0') c = ' ';
  }
  return raw;
}

std::string host_name() {
  char host[256] = {};
  ::gethostname(host, sizeof host - 1);
  return host;
}

// Never destroyed: CUDA and NVTX calls may arrive from other threads while the process
// exits; the atexit handler ends the files instead.
ProfileSink* g_sink = nullptr;
hdbench::trace::Recorder* g_recorder = nullptr;  // copies, memsets, kernels: CUPTI's activity records
HostRecordBuffers* g_host = nullptr;             // api records and NVTX ranges, per program thread
ApiCallbacks* g_callbacks = nullptr;             // the kept calls' callbacks, into g_host
std::atomic<bool> g_finished{false};

// The GPUs' names through the driver already loaded (looked up, not linked, so the
// library loads on a machine without a driver and says why it recorded nothing).
std::vector<std::string> gpu_names() {
  std::vector<std::string> names;
  void* driver = ::dlopen("libcuda.so.1", RTLD_LAZY | RTLD_NOLOAD);
  if (driver == nullptr) return names;
  using GetCount = CUresult (*)(int*);
  using Get = CUresult (*)(CUdevice*, int);
  using GetName = CUresult (*)(char*, int, CUdevice);
  const auto get_count = reinterpret_cast<GetCount>(::dlsym(driver, "cuDeviceGetCount"));
  const auto get = reinterpret_cast<Get>(::dlsym(driver, "cuDeviceGet"));
  const auto get_name = reinterpret_cast<GetName>(::dlsym(driver, "cuDeviceGetName"));
  int count = 0;
  if (get_count == nullptr || get == nullptr || get_name == nullptr || get_count(&count) != CUDA_SUCCESS) {
    return names;
  }
  for (int d = 0; d < count; ++d) {
    CUdevice device = 0;
    char name[256] = {};
    names.emplace_back(
        get(&device, d) == CUDA_SUCCESS && get_name(name, sizeof name, device) == CUDA_SUCCESS ? name : "unknown");
  }
  return names;
}

// CUPTI's clock (the records') read beside CLOCK_MONOTONIC, the clock Python's
// time.monotonic_ns() reads: host events the program times itself (its garbage
// collections, tools/profile_site) are put on the records' clock by the pairs written at
// the start and the end, a line through them. Of three tries, the one whose two
// monotonic reads bracket CUPTI's read closest.
nlohmann::json clock_pair() {
  std::uint64_t best_cupti = 0;
  std::int64_t best_monotonic = 0;
  std::int64_t best_gap = -1;
  for (int i = 0; i < 3; ++i) {
    timespec before{};
    timespec after{};
    std::uint64_t cupti = 0;
    ::clock_gettime(CLOCK_MONOTONIC, &before);
    const bool read = cuptiGetTimestamp(&cupti) == CUPTI_SUCCESS;
    ::clock_gettime(CLOCK_MONOTONIC, &after);
    if (!read) continue;
    const std::int64_t b = before.tv_sec * 1'000'000'000LL + before.tv_nsec;
    const std::int64_t a = after.tv_sec * 1'000'000'000LL + after.tv_nsec;
    if (best_gap < 0 || a - b < best_gap) {
      best_gap = a - b;
      best_cupti = cupti;
      best_monotonic = b + (a - b) / 2;
    }
  }
  if (best_gap < 0) return nullptr;
  return {{"cupti_ns", best_cupti}, {"monotonic_ns", best_monotonic}};
}

void finish_at_exit() {
  // A forked child runs its parent's handlers on exit: only the process that opened
  // the files ends them.
  if (g_sink == nullptr || g_sink->pid() != ::getpid() || g_finished.exchange(true)) return;
  if (g_callbacks != nullptr) g_callbacks->stop();
  std::size_t dropped = 0;
  hdbench::trace::TraceMetadata metadata;
  if (g_recorder != nullptr) {
    g_recorder->finish();  // flushes CUPTI's buffers into the sink
    dropped = g_recorder->dropped_records();
    metadata = g_recorder->metadata(host_name(), gpu_names());
    if (const char* rank = std::getenv("RANK"); rank != nullptr) metadata.rank = std::atoi(rank);  // torchrun's
  }
  if (g_host != nullptr) {
    g_host->stop();
    g_host->flush_all();  // every thread still running: its buffer (threads that ended handed theirs over)
    dropped += g_host->lost();
  }
  // the writer thread writes what is queued, then the end line
  g_sink->finish(metadata, dropped, {{"clock", clock_pair()}});
}

// The records file's first line; "error" added when CUPTI could not start. origin_ns:
// when recording began, on the records' clock (CUPTI's), so processes order by start.
nlohmann::json process_line(std::uint64_t origin_ns) {
  return {{"type", "process"},     {"pid", ::getpid()},
          {"ppid", ::getppid()},   {"command", command_line()},
          {"host", host_name()},   {"gpus", nlohmann::json::array()},  // named in the end line, once CUDA is up
          {"origin_ns", origin_ns}};
}

// A process that is not recorded says why, in a file of one line.
void write_failure(const std::filesystem::path& dir, const nlohmann::json& line) {
  const auto path = dir / fmt::format("records-{}.jsonl", ::getpid());
  if (std::FILE* f = std::fopen(path.c_str(), "we")) {
    const std::string text = line.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
    std::fwrite(text.data(), 1, text.size(), f);
    std::fclose(f);
  }
}

// ---- NVTX: the program's push/pop ranges, per thread ----

struct OpenRange {
  std::string name;
  std::uint64_t start_ns = 0;
};
thread_local std::vector<OpenRange> t_open_ranges;

int push(const char* message) {
  if (g_recorder == nullptr) return 0;
  t_open_ranges.push_back({message != nullptr ? message : "", g_recorder->now_ns()});
  return static_cast<int>(t_open_ranges.size()) - 1;
}

int pop() {
  if (g_recorder == nullptr || t_open_ranges.empty()) return -1;
  const OpenRange range = std::move(t_open_ranges.back());
  t_open_ranges.pop_back();
  if (g_host != nullptr) g_host->range(range.name, range.start_ns, g_recorder->now_ns());
  return static_cast<int>(t_open_ranges.size());
}

const char* ascii_message(const nvtxEventAttributes_t* a) {
  return a != nullptr && a->messageType == NVTX_MESSAGE_TYPE_ASCII ? a->message.ascii : "(range)";
}

int core_push_a(const char* message) { return push(message); }
int core_push_ex(const nvtxEventAttributes_t* a) { return push(ascii_message(a)); }
int core_pop() { return pop(); }
int domain_push_ex(nvtxDomainHandle_t, const nvtxEventAttributes_t* a) { return push(ascii_message(a)); }
int domain_pop(nvtxDomainHandle_t) { return pop(); }

template <typename Expected>
bool set_slot(const NvtxExportTableCallbacks& callbacks, NvtxCallbackModule module, unsigned id, Expected function) {
  NvtxFunctionTable table = nullptr;
  unsigned int size = 0;
  if (callbacks.GetModuleFunctionTable(module, &table, &size) == 0 || table == nullptr || id >= size ||
      table[id] == nullptr) {
    return false;
  }
  *table[id] = reinterpret_cast<NvtxFunctionPointer>(function);
  return true;
}

}  // namespace

extern "C" __attribute__((visibility("default"))) int InitializeInjection() {
  const char* dir_env = std::getenv("HDBENCH_PROFILE_DIR");
  if (dir_env == nullptr || *dir_env == '\0') return 1;  // loaded outside hdbench_profile: record nothing
  const std::filesystem::path dir(dir_env);
  std::size_t budget = hdbench::trace::ProfileSinkLimits{}.budget;
  if (const char* b = std::getenv("HDBENCH_PROFILE_TRACE_BUDGET"); b != nullptr && std::atoll(b) > 0) {
    budget = static_cast<std::size_t>(std::atoll(b));
  }
  double trace_megabytes = hdbench::trace::ProfileSinkLimits{}.trace_megabytes;
  // A size in MB up to 1e6 (a terabyte); inf or 1e300 cast to 0 bytes and kept no trace at all.
  if (const char* mb = std::getenv("HDBENCH_PROFILE_TRACE_MB");
      mb != nullptr && std::atof(mb) > 0 && std::atof(mb) <= 1e6) {
    trace_megabytes = std::atof(mb);
  }
  hdbench::trace::ProfileSinkLimits limits;
  limits.budget = budget;
  limits.trace_megabytes = trace_megabytes;
  nlohmann::json line = process_line(0);
  std::string parts_error;
  const std::optional<hdbench::trace::RecordParts> parts =
      hdbench::trace::parse_record_parts(std::getenv("HDBENCH_PROFILE_RECORD"), parts_error);
  if (!parts) {
    line["error"] = parts_error;
    write_failure(dir, line);
    return 1;
  }
  line["recorded_parts"] = hdbench::trace::to_string(*parts);
  // Declared in the order they start, so that a failure tears them down in reverse.
  std::unique_ptr<ProfileSink> sink;
  std::unique_ptr<hdbench::trace::Recorder> recorder;
  std::unique_ptr<HostRecordBuffers> host;
  std::unique_ptr<ApiCallbacks> callbacks;
  try {
    std::uint64_t origin_ns = 0;
    if (const CUptiResult result = cuptiGetTimestamp(&origin_ns); result != CUPTI_SUCCESS) {
      throw std::runtime_error(
          fmt::format("cuptiGetTimestamp failed (CUPTI error {}); what to do: check that a GPU "
                      "and its driver are visible to this process",
                      static_cast<int>(result)));
    }
    line["origin_ns"] = origin_ns;
    line["clock"] = clock_pair();
    sink = std::make_unique<ProfileSink>(dir, line, limits);
    // Activity records for the GPU's work only: the runtime calls come from callbacks,
    // for the kept calls alone.
    if (parts->gpu) recorder = std::make_unique<hdbench::trace::Recorder>(false, sink.get());
    host = std::make_unique<HostRecordBuffers>(*sink);
    if (parts->api) callbacks = std::make_unique<ApiCallbacks>(*host, true);
    g_sink = sink.release();
    g_recorder = recorder.release();
    g_host = host.release();
    g_callbacks = callbacks.release();
    std::atexit(finish_at_exit);
  } catch (const std::exception& error) {
    // Unsubscribes, stops recording, ends the writer thread, closes the records file and
    // removes the trace's temp file; then the file says why, in one line.
    callbacks.reset();
    host.reset();
    recorder.reset();
    sink.reset();
    line["error"] = error.what();
    write_failure(dir, line);
  }
  return 1;  // the program runs whether or not it is recorded
}

extern "C" __attribute__((visibility("default"))) int InitializeInjectionNvtx2(
    NvtxGetExportTableFunc_t get_export_table) {
  if (get_export_table == nullptr) return 0;
  std::string ignored;  // a bad value is said by InitializeInjection, in the records file
  const auto parts = hdbench::trace::parse_record_parts(std::getenv("HDBENCH_PROFILE_RECORD"), ignored);
  if (!parts || !parts->nvtx) return 0;  // NVTX's calls stay no-ops: nothing of them recorded
  const auto* callbacks = static_cast<const NvtxExportTableCallbacks*>(get_export_table(NVTX_ETID_CALLBACKS));
  if (callbacks == nullptr || callbacks->GetModuleFunctionTable == nullptr) return 0;
  bool ok =
      set_slot<nvtxRangePushA_impl_fntype>(*callbacks, NVTX_CB_MODULE_CORE, NVTX_CBID_CORE_RangePushA, &core_push_a);
  ok = set_slot<nvtxRangePushEx_impl_fntype>(*callbacks, NVTX_CB_MODULE_CORE, NVTX_CBID_CORE_RangePushEx,
                                             &core_push_ex) &&
       ok;
  ok = set_slot<nvtxRangePop_impl_fntype>(*callbacks, NVTX_CB_MODULE_CORE, NVTX_CBID_CORE_RangePop, &core_pop) && ok;
  ok = set_slot<nvtxDomainRangePushEx_impl_fntype>(*callbacks, NVTX_CB_MODULE_CORE2, NVTX_CBID_CORE2_DomainRangePushEx,
                                                   &domain_push_ex) &&
       ok;
  ok = set_slot<nvtxDomainRangePop_impl_fntype>(*callbacks, NVTX_CB_MODULE_CORE2, NVTX_CBID_CORE2_DomainRangePop,
                                                &domain_pop) &&
       ok;
  return ok ? 1 : 0;
}

// trace_writer registers its temp file for hdbench's interrupt handler; in another
// program there is none (its signals are its own), and hdbench_profile removes the
// whole folder, temp files and all.
namespace hdbench {
void remove_on_interrupt(const std::string&) noexcept {}
void keep_on_interrupt() noexcept {}
}  // namespace hdbench
