#include "core/nvtx.hpp"

#include <nvtx3/nvToolsExt.h>
#include <nvtx3/nvToolsExtCudaRt.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <atomic>
#include <mutex>
#include <set>

namespace hdbench::nvtx {
namespace {

nvtxDomainHandle_t domain() noexcept {
  static const nvtxDomainHandle_t handle = nvtxDomainCreateA(kDomainName);
  return handle;
}

// Names `category` in the domain the first time a range of it is pushed, so a tool
// that attaches sees readable categories (an uncontended lock and a lookup a range).
void name_once(const Category& category) noexcept {
  static std::mutex mutex;
  static std::set<std::uint32_t> named;
  try {
    const std::lock_guard lock(mutex);
    if (named.insert(category.id()).second) nvtxDomainNameCategoryA(domain(), category.id(), category.name);
  } catch (...) {
    // out of memory: the category stays unnamed, the range is still pushed
  }
}

std::atomic<Observer*> g_observer{nullptr};

}  // namespace

void set_observer(Observer* observer) noexcept { g_observer.store(observer); }

std::uint64_t current_thread_id() noexcept { return static_cast<std::uint64_t>(::syscall(SYS_gettid)); }

ScopedRange::ScopedRange(const Category& category, const std::string& name, std::uint64_t bytes) noexcept {
  name_once(category);
  nvtxEventAttributes_t attributes{};
  attributes.version = NVTX_VERSION;
  attributes.size = NVTX_EVENT_ATTRIB_STRUCT_SIZE;
  attributes.category = category.id();
  attributes.colorType = NVTX_COLOR_ARGB;
  attributes.color = category.argb;
  attributes.payloadType = NVTX_PAYLOAD_TYPE_UNSIGNED_INT64;
  attributes.payload.ullValue = bytes;
  attributes.messageType = NVTX_MESSAGE_TYPE_ASCII;
  attributes.message.ascii = name.c_str();
  nvtxDomainRangePushEx(domain(), &attributes);
  if (Observer* observer = g_observer.load(); observer != nullptr) {
    try {
      name_ = name;
    } catch (...) {
      return;  // out of memory: the trace misses this range, the run goes on
    }
    observer_ = observer;
    bytes_ = bytes;
    start_ns_ = observer->now_ns();
  }
}

ScopedRange::~ScopedRange() {
  nvtxDomainRangePop(domain());
  if (observer_ != nullptr) observer_->range(current_thread_id(), name_, bytes_, start_ns_, observer_->now_ns());
}

void name_current_thread(const std::string& name) noexcept {
  nvtxNameOsThreadA(static_cast<std::uint32_t>(current_thread_id()), name.c_str());
  if (Observer* observer = g_observer.load(); observer != nullptr) observer->thread_named(current_thread_id(), name);
}

void name_stream(cudaStream_t stream, const std::string& name) noexcept {
  nvtxNameCudaStreamA(stream, name.c_str());
  if (Observer* observer = g_observer.load(); observer != nullptr) observer->stream_named(stream, name);
}

}  // namespace hdbench::nvtx
