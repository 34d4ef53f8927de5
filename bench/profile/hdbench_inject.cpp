// libhdbench_inject.so: records another program's CUDA activity for hdbench_profile.
//
// The CUDA driver loads it into every process that initialises CUDA when
// CUDA_INJECTION64_PATH names it (children inherit the variable, so they are recorded
// too), and calls InitializeInjection. NVTX loads it when NVTX_INJECTION64_PATH names
// it and calls InitializeInjectionNvtx2: the program's push/pop ranges are kept.
//
// In $HDBENCH_PROFILE_DIR each process writes
//   records-<pid>.jsonl  one JSON object per line, appended batch by batch and flushed,
//                        so a killed process leaves every whole line it wrote: first a
//                        "process" line, then "copy", "memset", "kernel", "api" (only
//                        the calls that move data or block the host) and "range" lines,
//                        and last, when the process ends normally, an "end" line.
//   trace-<pid>.json     the Chrome/Perfetto trace of the first records, in Kineto's
//                        names, renamed into place only when whole; it stops taking
//                        records at $HDBENCH_PROFILE_TRACE_MB of text (default 200), so a
//                        long run's trace stays a file a viewer opens.
// Records beyond $HDBENCH_PROFILE_TRACE_BUDGET (default 2,000,000) are counted, not kept,
// in either. The line format is
// docs/profiling.md's; tools/hdreport/profile_records.py reads it.
#define NVTX_NO_IMPL  // a tool: NVTX's types and declarations only
#include <cuda.h>
#include <dlfcn.h>
#include <fmt/format.h>
#include <nvtx3/nvToolsExt.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "trace/trace_recorder.hpp"
#include "trace/trace_records.hpp"
#include "trace/trace_writer.hpp"

namespace {

using hdbench::trace::MemoryKind;
using hdbench::trace::Record;
using hdbench::trace::RecordKind;

constexpr std::size_t kDefaultBudget = 2'000'000;
constexpr double kDefaultTraceMegabytes = 200.0;

// The runtime calls worth keeping: those that move data or make the host wait. Every
// kernel launch's call is left out (the kernel itself is recorded).
bool kept_api(std::string_view name) {
  return name.starts_with("cudaMemcpy") || name.starts_with("cudaMemset") ||
         name.find("Synchronize") != std::string_view::npos || name == "cudaMallocHost" || name == "cudaHostAlloc" ||
         name == "cudaHostRegister" || name == "cudaFree" || name == "cudaFreeHost";
}

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

std::uint64_t os_thread() { return static_cast<std::uint64_t>(::syscall(SYS_gettid)); }

nlohmann::json line_of(const Record& r) {
  nlohmann::json j = {{"start_ns", r.start_ns}, {"end_ns", r.end_ns}};
  switch (r.kind) {
    case RecordKind::memcpy:
      j["type"] = "copy";
      j["direction"] = r.name;
      j["src"] = hdbench::trace::to_string(r.src);
      j["dst"] = hdbench::trace::to_string(r.dst);
      j["bytes"] = r.bytes;
      j["async_api"] = r.async_api;
      break;
    case RecordKind::memset:
      j["type"] = "memset";
      j["bytes"] = r.bytes;
      break;
    case RecordKind::kernel:
      j["type"] = "kernel";
      j["name"] = r.name;
      break;
    case RecordKind::api:
      j["type"] = "api";
      j["name"] = r.name;
      j["thread"] = r.thread;
      break;
    case RecordKind::range:
      j["type"] = "range";
      j["name"] = r.name;
      j["thread"] = r.thread;
      break;
  }
  if (hdbench::trace::is_gpu_record(r.kind)) {
    j["device"] = r.device;
    j["stream"] = r.stream;
  }
  if (r.kind != RecordKind::range) j["correlation"] = r.correlation;
  return j;
}

// Where the recorder's batches go: the records file and, up to the budget, the trace.
class ProfileSink final : public hdbench::trace::RecordSink {
 public:
  ProfileSink(const std::filesystem::path& dir, std::size_t budget, double trace_megabytes)
      : pid_(::getpid()),
        records_path_(dir / fmt::format("records-{}.jsonl", pid_)),
        trace_path_(dir / fmt::format("trace-{}.json", pid_)),
        budget_(budget),
        trace_bytes_limit_(static_cast<std::uint64_t>(trace_megabytes * 1e6)) {
    file_ = std::fopen(records_path_.c_str(), "we");
    if (file_ == nullptr) throw std::runtime_error(fmt::format("cannot write {}", records_path_.string()));
  }
  ~ProfileSink() override {
    if (file_ != nullptr) std::fclose(file_);
  }
  ProfileSink(const ProfileSink&) = delete;
  ProfileSink& operator=(const ProfileSink&) = delete;

  void write_line(const nlohmann::json& line) {
    std::lock_guard lock(mutex_);
    write_line_locked(line);
    std::fflush(file_);
  }

  void started(std::uint64_t origin_ns) override {
    std::lock_guard lock(mutex_);
    origin_ns_ = origin_ns;
    try {
      writer_ = std::make_unique<hdbench::trace::ChromeTraceWriter>(trace_path_, origin_ns);
    } catch (const std::exception& error) {
      trace_error_ = error.what();  // the records still go to the file
    }
  }

  void consume(std::vector<Record>& records) override {
    std::lock_guard lock(mutex_);
    std::vector<Record> kept;
    kept.reserve(records.size());
    for (Record& r : records) {
      if (r.kind == RecordKind::api && !kept_api(r.name)) continue;
      if (kept_ >= budget_) {
        ++over_budget_;
        continue;
      }
      ++kept_;
      write_line_locked(line_of(r));
      kept.push_back(std::move(r));
    }
    std::fflush(file_);
    if (!writer_ || kept.empty()) return;
    if (writer_->bytes_written() >= trace_bytes_limit_) {
      beyond_trace_ += kept.size();  // analysed, not drawn: the trace is full
      return;
    }
    writer_->write(std::span<const Record>(kept));
  }

  // The trace's names and end, and the records file's end line.
  void finish(const hdbench::trace::TraceMetadata& metadata, std::size_t cupti_dropped) {
    std::lock_guard lock(mutex_);
    std::string trace_name;
    if (writer_) {
      try {
        writer_->close(metadata, {{"records", kept_},
                                  {"records_over_budget", over_budget_},
                                  {"records_beyond_trace_size", beyond_trace_},
                                  {"trace_size_limit_bytes", trace_bytes_limit_}});
        trace_name = trace_path_.filename().string();
      } catch (const std::exception& error) {
        trace_error_ = error.what();
      }
    }
    nlohmann::json end = {{"type", "end"},
                          {"records", kept_},
                          {"over_budget", over_budget_},
                          {"beyond_trace_size", beyond_trace_},
                          {"cupti_dropped", cupti_dropped},
                          {"gpus", metadata.gpu_names},
                          {"trace", trace_name.empty() ? nlohmann::json(nullptr) : nlohmann::json(trace_name)}};
    if (!trace_error_.empty()) end["trace_error"] = trace_error_;
    write_line_locked(end);
    std::fclose(file_);
    file_ = nullptr;
  }

  pid_t pid() const noexcept { return pid_; }

 private:
  void write_line_locked(const nlohmann::json& line) {
    if (file_ == nullptr) return;
    const std::string text = line.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
    std::fwrite(text.data(), 1, text.size(), file_);
  }

  pid_t pid_;
  std::filesystem::path records_path_, trace_path_;
  std::size_t budget_;
  std::mutex mutex_;
  std::FILE* file_ = nullptr;
  std::unique_ptr<hdbench::trace::ChromeTraceWriter> writer_;
  std::string trace_error_;
  std::uint64_t origin_ns_ = 0;
  std::uint64_t trace_bytes_limit_ = 0;
  std::size_t kept_ = 0, over_budget_ = 0, beyond_trace_ = 0;
};

// Never destroyed: CUDA and NVTX calls may arrive from other threads while the process
// exits; the atexit handler ends the files instead.
ProfileSink* g_sink = nullptr;
hdbench::trace::Recorder* g_recorder = nullptr;
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

void finish_at_exit() {
  // A forked child runs its parent's handlers on exit: only the process that opened
  // the files ends them.
  if (g_sink == nullptr || g_sink->pid() != ::getpid() || g_finished.exchange(true)) return;
  std::size_t dropped = 0;
  hdbench::trace::TraceMetadata metadata;
  if (g_recorder != nullptr) {
    g_recorder->finish();  // flushes CUPTI's buffers into the sink
    dropped = g_recorder->dropped_records();
    metadata = g_recorder->metadata(host_name(), gpu_names());
    if (const char* rank = std::getenv("RANK"); rank != nullptr) metadata.rank = std::atoi(rank);  // torchrun's
  }
  g_sink->finish(metadata, dropped);
}

// The records file's first line; "error" added when CUPTI could not start.
nlohmann::json process_line() {
  return {{"type", "process"},   {"pid", ::getpid()},
          {"ppid", ::getppid()}, {"command", command_line()},
          {"host", host_name()}, {"gpus", nlohmann::json::array()},  // named in the end line, once CUDA is up
          {"origin_ns", 0}};
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
  g_recorder->range(os_thread(), range.name, 0, range.start_ns, g_recorder->now_ns());
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
  std::size_t budget = kDefaultBudget;
  if (const char* b = std::getenv("HDBENCH_PROFILE_TRACE_BUDGET"); b != nullptr && std::atoll(b) > 0) {
    budget = static_cast<std::size_t>(std::atoll(b));
  }
  double trace_megabytes = kDefaultTraceMegabytes;
  if (const char* mb = std::getenv("HDBENCH_PROFILE_TRACE_MB"); mb != nullptr && std::atof(mb) > 0) {
    trace_megabytes = std::atof(mb);
  }
  std::unique_ptr<ProfileSink> sink;
  try {
    sink = std::make_unique<ProfileSink>(dir, budget, trace_megabytes);
    sink->write_line(process_line());
    g_recorder = new hdbench::trace::Recorder(true, sink.get());
    g_sink = sink.release();
    std::atexit(finish_at_exit);
  } catch (const std::exception& error) {
    sink.reset();  // closes the records file and removes the trace's temp file
    nlohmann::json line = process_line();
    line["error"] = error.what();
    write_failure(dir, line);
  }
  return 1;  // the program runs whether or not it is recorded
}

extern "C" __attribute__((visibility("default"))) int InitializeInjectionNvtx2(
    NvtxGetExportTableFunc_t get_export_table) {
  if (get_export_table == nullptr) return 0;
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
