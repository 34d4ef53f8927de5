#include "core/nvtx.hpp"

#include <nvtx3/nvToolsExt.h>
#include <nvtx3/nvToolsExtCudaRt.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <atomic>

namespace hdbench::nvtx {
namespace {

// Created on first use and named with every family's category, so a tool that
// attaches sees readable categories from the first range on.
nvtxDomainHandle_t domain() noexcept {
  static const nvtxDomainHandle_t handle = [] {
    nvtxDomainHandle_t created = nvtxDomainCreateA(kDomainName);
    for (Family family : kAllFamilies) {
      nvtxDomainNameCategoryA(created, static_cast<std::uint32_t>(family), family_name(family));
    }
    return created;
  }();
  return handle;
}

std::atomic<Observer*> g_observer{nullptr};

}  // namespace

void set_observer(Observer* observer) noexcept { g_observer.store(observer); }

std::uint64_t current_thread_id() noexcept { return static_cast<std::uint64_t>(::syscall(SYS_gettid)); }

const char* family_name(Family family) noexcept {
  switch (family) {
    case Family::transfer:
      return "transfer";
    case Family::pinning:
      return "pinning";
    case Family::staged:
      return "staged";
    case Family::host_memcpy:
      return "host_memcpy";
    case Family::streams:
      return "streams";
    case Family::loader:
      return "loader";
    case Family::mlp:
      return "mlp";
    case Family::device_local:
      return "device_local";
    case Family::latency:
      return "latency";
    case Family::managed:
      return "managed";
    case Family::batch_copy:
      return "batch_copy";
    case Family::strided:
      return "strided";
  }
  return "unknown";
}

std::uint32_t family_color(Family family) noexcept {
  switch (family) {
    case Family::transfer:
      return 0xFF1F77B4;
    case Family::pinning:
      return 0xFFFF7F0E;
    case Family::staged:
      return 0xFF2CA02C;
    case Family::host_memcpy:
      return 0xFFD62728;
    case Family::streams:
      return 0xFF9467BD;
    case Family::loader:
      return 0xFF8C564B;
    case Family::mlp:
      return 0xFFE377C2;
    case Family::device_local:
      return 0xFF17BECF;
    case Family::latency:
      return 0xFFBCBD22;
    case Family::managed:
      return 0xFFAEC7E8;
    case Family::batch_copy:
      return 0xFFFFBB78;
    case Family::strided:
      return 0xFF98DF8A;
  }
  return 0xFF7F7F7F;
}

ScopedRange::ScopedRange(Family family, const std::string& name, std::uint64_t bytes) noexcept {
  nvtxEventAttributes_t attributes{};
  attributes.version = NVTX_VERSION;
  attributes.size = NVTX_EVENT_ATTRIB_STRUCT_SIZE;
  attributes.category = static_cast<std::uint32_t>(family);
  attributes.colorType = NVTX_COLOR_ARGB;
  attributes.color = family_color(family);
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
