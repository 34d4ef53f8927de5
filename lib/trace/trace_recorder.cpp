#include "trace/trace_recorder.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <optional>

#if defined(HDBENCH_HAVE_CUPTI)
#include <cupti.h>

#include "trace/cupti_check.hpp"
#endif

namespace hdbench::trace {

#if !defined(HDBENCH_HAVE_CUPTI)

bool cupti_built_in() noexcept { return false; }
Recorder::Recorder(bool, RecordSink*) { throw TraceUnavailable("this hdbench was built without CUPTI"); }
void Recorder::flush() {}
Recorder::~Recorder() = default;
std::vector<Record> Recorder::finish() { return {}; }
std::uint64_t Recorder::now_ns() noexcept { return 0; }
void Recorder::stream_named(cudaStream_t, const std::string&) noexcept {}

#else

namespace {

// CUPTI's callbacks are plain functions; they find the active recorder here.
std::atomic<Recorder*> g_recorder{nullptr};

constexpr std::size_t kBufferBytes = 8u << 20;
constexpr std::size_t kBufferAlignment = 8;

std::string cupti_error_text(CUptiResult result) {
  const char* text = nullptr;
  cuptiGetResultString(result, &text);
  return text != nullptr ? text : fmt::format("CUPTI error {}", static_cast<int>(result));
}

MemoryKind memory_kind(std::uint8_t kind) {
  switch (kind) {
    case CUPTI_ACTIVITY_MEMORY_KIND_PAGEABLE:
      return MemoryKind::pageable;
    case CUPTI_ACTIVITY_MEMORY_KIND_PINNED:
      return MemoryKind::pinned;
    case CUPTI_ACTIVITY_MEMORY_KIND_DEVICE:
    case CUPTI_ACTIVITY_MEMORY_KIND_DEVICE_STATIC:
      return MemoryKind::device;
    case CUPTI_ACTIVITY_MEMORY_KIND_ARRAY:
      return MemoryKind::array;
    case CUPTI_ACTIVITY_MEMORY_KIND_MANAGED:
    case CUPTI_ACTIVITY_MEMORY_KIND_MANAGED_STATIC:
      return MemoryKind::managed;
    default:
      return MemoryKind::unknown;
  }
}

const char* copy_kind_name(std::uint8_t kind) {
  switch (kind) {
    case CUPTI_ACTIVITY_MEMCPY_KIND_HTOD:
      return "HtoD";
    case CUPTI_ACTIVITY_MEMCPY_KIND_DTOH:
      return "DtoH";
    case CUPTI_ACTIVITY_MEMCPY_KIND_DTOD:
      return "DtoD";
    case CUPTI_ACTIVITY_MEMCPY_KIND_HTOH:
      return "HtoH";
    case CUPTI_ACTIVITY_MEMCPY_KIND_PTOP:
      return "PtoP";
    default:
      return "other";
  }
}

// The record of an activity kind we asked for; nullopt for any other.
std::optional<Record> convert(const CUpti_Activity* activity) {
  Record r;
  switch (activity->kind) {
    case CUPTI_ACTIVITY_KIND_MEMCPY: {
      const auto* a = reinterpret_cast<const CUpti_ActivityMemcpy6*>(activity);
      r = {RecordKind::memcpy,
           a->start,
           a->end,
           copy_kind_name(a->copyKind),
           static_cast<int>(a->deviceId),
           a->streamId,
           0,
           a->bytes,
           memory_kind(a->srcKind),
           memory_kind(a->dstKind),
           a->correlationId,
           (a->flags & CUPTI_ACTIVITY_FLAG_MEMCPY_ASYNC) != 0};
      break;
    }
    case CUPTI_ACTIVITY_KIND_MEMSET: {
      const auto* a = reinterpret_cast<const CUpti_ActivityMemset4*>(activity);
      r = {RecordKind::memset,
           a->start,
           a->end,
           "memset",
           static_cast<int>(a->deviceId),
           a->streamId,
           0,
           a->bytes,
           MemoryKind::unknown,
           MemoryKind::unknown,
           a->correlationId};
      break;
    }
    case CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL:
    case CUPTI_ACTIVITY_KIND_KERNEL: {
      const auto* a = reinterpret_cast<const CUpti_ActivityKernel10*>(activity);
      r = {RecordKind::kernel,
           a->start,
           a->end,
           a->name != nullptr ? a->name : "kernel",
           static_cast<int>(a->deviceId),
           a->streamId,
           0,
           0,
           MemoryKind::unknown,
           MemoryKind::unknown,
           a->correlationId};
      break;
    }
    case CUPTI_ACTIVITY_KIND_RUNTIME: {
      const auto* a = reinterpret_cast<const CUpti_ActivityAPI*>(activity);
      const char* name = nullptr;
      cuptiGetCallbackName(CUPTI_CB_DOMAIN_RUNTIME_API, a->cbid, &name);
      r = {RecordKind::api,
           a->start,
           a->end,
           name != nullptr ? api_name_as_called(name) : "cuda runtime call",
           -1,
           0,
           a->threadId,
           0,
           MemoryKind::unknown,
           MemoryKind::unknown,
           a->correlationId};
      break;
    }
    default:
      return std::nullopt;
  }
  return r;
}

void CUPTIAPI buffer_requested(std::uint8_t** buffer, std::size_t* size, std::size_t* max_records) {
  *buffer = static_cast<std::uint8_t*>(std::aligned_alloc(kBufferAlignment, kBufferBytes));
  *size = *buffer != nullptr ? kBufferBytes : 0;
  *max_records = 0;  // as many as fit
}

void CUPTIAPI buffer_completed(CUcontext context, std::uint32_t stream, std::uint8_t* buffer, std::size_t,
                               std::size_t valid_bytes) {
  std::vector<Record> records;
  CUpti_Activity* activity = nullptr;
  try {
    while (cuptiActivityGetNextRecord(buffer, valid_bytes, &activity) == CUPTI_SUCCESS) {
      std::optional<Record> r = convert(activity);
      if (r && r->end_ns >= r->start_ns) records.push_back(std::move(*r));
    }
  } catch (...) {
    // Out of memory: the records of this buffer are lost, counted below as dropped.
  }
  std::size_t dropped = 0;
  cuptiActivityGetNumDroppedRecords(context, stream, &dropped);
  std::free(buffer);
  if (Recorder* recorder = g_recorder.load(); recorder != nullptr) recorder->add_records(std::move(records), dropped);
}

constexpr CUpti_ActivityKind kGpuKinds[] = {CUPTI_ACTIVITY_KIND_MEMCPY, CUPTI_ACTIVITY_KIND_MEMSET,
                                            CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL};

}  // namespace

void check_cupti(CUptiResult result, const char* call) {
  if (result == CUPTI_SUCCESS) return;
  std::string hint = "check that a GPU and its driver are visible to this process";
  if (result == CUPTI_ERROR_INSUFFICIENT_PRIVILEGES) {
    hint = "profiling needs permission: run as root or set NVreg_RestrictProfilingToAdminUsers=0";
  } else if (result == CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED) {
    hint = "another profiler (Nsight Systems?) is attached; run without it";
  }
  throw TraceUnavailable(fmt::format("{} failed: {}; what to do: {}", call, cupti_error_text(result), hint));
}

bool cupti_built_in() noexcept { return true; }

Recorder::Recorder(bool api_calls, RecordSink* sink) : sink_(sink) {
  Recorder* expected = nullptr;
  if (!g_recorder.compare_exchange_strong(expected, this)) {
    throw TraceUnavailable("a trace is already being recorded in this process");
  }
  try {
    check_cupti(cuptiActivityRegisterCallbacks(buffer_requested, buffer_completed), "cuptiActivityRegisterCallbacks");
    check_cupti(cuptiGetTimestamp(&origin_ns_), "cuptiGetTimestamp");
    if (sink_ != nullptr) sink_->started(origin_ns_);  // may throw (the trace file cannot be created)
    for (CUpti_ActivityKind kind : kGpuKinds) check_cupti(cuptiActivityEnable(kind), "cuptiActivityEnable");
    if (api_calls) {
      // The OS thread id, as NVTX ranges and thread names carry (CUPTI's default is pthread_self()).
      check_cupti(cuptiSetThreadIdType(CUPTI_ACTIVITY_THREAD_ID_TYPE_SYSTEM), "cuptiSetThreadIdType");
      check_cupti(cuptiActivityEnable(CUPTI_ACTIVITY_KIND_RUNTIME), "cuptiActivityEnable(RUNTIME)");
    }
  } catch (...) {
    for (CUpti_ActivityKind kind : kGpuKinds) cuptiActivityDisable(kind);
    cuptiActivityDisable(CUPTI_ACTIVITY_KIND_RUNTIME);
    g_recorder.store(nullptr);
    throw;
  }
  recording_ = true;
  nvtx::set_observer(this);
}

Recorder::~Recorder() {
  if (recording_) finish();
  g_recorder.store(nullptr);
}

std::vector<Record> Recorder::finish() {
  nvtx::set_observer(nullptr);
  if (recording_) {
    for (CUpti_ActivityKind kind : kGpuKinds) cuptiActivityDisable(kind);
    cuptiActivityDisable(CUPTI_ACTIVITY_KIND_RUNTIME);
    cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
    recording_ = false;
  }
  std::unique_lock lock(mutex_);
  std::vector<Record> records = std::move(records_);
  records_.clear();
  if (sink_ != nullptr) {
    lock.unlock();
    hand_over(records);
    return {};
  }
  std::stable_sort(records.begin(), records.end(),
                   [](const Record& a, const Record& b) { return a.start_ns < b.start_ns; });
  return records;
}

void Recorder::flush() {
  if (recording_) cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
  if (sink_ == nullptr) return;
  std::vector<Record> ranges;
  {
    std::lock_guard lock(mutex_);
    ranges.swap(records_);
  }
  hand_over(ranges);
}

std::uint64_t Recorder::now_ns() noexcept {
  std::uint64_t now = 0;
  cuptiGetTimestamp(&now);
  return now;
}

void Recorder::stream_named(cudaStream_t stream, const std::string& name) noexcept {
  std::uint32_t id = 0;
  if (cuptiGetStreamIdEx(nullptr, reinterpret_cast<CUstream>(stream), 0, &id) != CUPTI_SUCCESS) return;
  try {
    std::lock_guard lock(mutex_);
    stream_names_[id] = name;
  } catch (...) {
  }
}

#endif

TraceMetadata Recorder::metadata(const std::string& host_name, const std::vector<std::string>& gpu_names) const {
  std::lock_guard lock(mutex_);
  TraceMetadata m;
  m.host_name = host_name;
  m.gpu_names = gpu_names;
  m.stream_names = stream_names_;
  m.thread_names = thread_names_;
  m.origin_ns = origin_ns_;
  return m;
}

std::size_t Recorder::dropped_records() const {
  std::lock_guard lock(mutex_);
  return dropped_;
}

std::string Recorder::sink_error() const {
  std::lock_guard lock(mutex_);
  return sink_error_;
}

void Recorder::hand_over(std::vector<Record>& records) noexcept {
  if (records.empty()) return;
  std::string error;
  try {
    {
      std::lock_guard lock(mutex_);
      if (!sink_error_.empty()) return;  // the trace is lost already
    }
    sink_->consume(records);
    return;
  } catch (const std::exception& e) {
    error = e.what();
  } catch (...) {
    error = "unknown error";
  }
  try {
    std::lock_guard lock(mutex_);
    if (sink_error_.empty()) sink_error_ = error;
  } catch (...) {
  }
}

void Recorder::add_records(std::vector<Record> records, std::size_t dropped) {
  std::unique_lock lock(mutex_);
  dropped_ += dropped;
  if (sink_ == nullptr) {
    records_.insert(records_.end(), std::make_move_iterator(records.begin()), std::make_move_iterator(records.end()));
    return;
  }
  // The ranges waiting go with this buffer.
  std::vector<Record> ranges;
  ranges.swap(records_);
  lock.unlock();
  hand_over(records);
  hand_over(ranges);
}

void Recorder::range(std::uint64_t thread, const std::string& name, std::uint64_t bytes, std::uint64_t start_ns,
                     std::uint64_t end_ns) noexcept {
  try {
    Record r = host_record(RecordKind::range, name, start_ns, end_ns, thread);
    r.bytes = bytes;
    std::unique_lock lock(mutex_);
    records_.push_back(std::move(r));
    if (sink_ != nullptr && records_.size() >= kRangesHandedOver) {
      std::vector<Record> ranges;
      ranges.swap(records_);
      lock.unlock();
      hand_over(ranges);
    }
  } catch (...) {
    // Out of memory: this range is missing from the trace.
  }
}

void Recorder::thread_named(std::uint64_t thread, const std::string& name) noexcept {
  try {
    std::lock_guard lock(mutex_);
    thread_names_[thread] = name;
  } catch (...) {
  }
}

}  // namespace hdbench::trace
