#include "core/host_memory.hpp"

#include <cuda_runtime_api.h>
#include <unistd.h>

#include <cstdlib>
#include <new>
#include <string>
#include <utility>

#include "core/cuda.hpp"

namespace hdbench {
namespace {

std::size_t page_size() noexcept {
  const long size = ::sysconf(_SC_PAGESIZE);
  return size > 0 ? static_cast<std::size_t>(size) : 4096;
}

// Page alignment lets cudaHostRegister lock exactly this range and keeps copies from
// straddling a page shared with unrelated data.
void* allocate_pages(std::size_t bytes) {
  const std::size_t page = page_size();
  const std::size_t rounded = (bytes + page - 1) / page * page;
  void* ptr = std::aligned_alloc(page, rounded == 0 ? page : rounded);
  if (ptr == nullptr) throw std::bad_alloc();
  return ptr;
}

}  // namespace

const char* to_string(HostMemoryKind kind) noexcept {
  switch (kind) {
    case HostMemoryKind::pageable:
      return "pageable";
    case HostMemoryKind::registered:
      return "registered";
    case HostMemoryKind::pinned:
      return "pinned";
    case HostMemoryKind::pinned_wc:
      return "pinned_wc";
    case HostMemoryKind::mapped:
      return "mapped";
  }
  return "unknown";
}

std::optional<HostMemoryKind> host_memory_kind_from_string(std::string_view name) {
  for (HostMemoryKind kind : all_host_memory_kinds()) {
    if (name == to_string(kind)) return kind;
  }
  return std::nullopt;
}

std::vector<HostMemoryKind> all_host_memory_kinds() {
  return {HostMemoryKind::pageable, HostMemoryKind::registered, HostMemoryKind::pinned, HostMemoryKind::pinned_wc,
          HostMemoryKind::mapped};
}

bool is_device_accessible(HostMemoryKind kind) noexcept { return kind != HostMemoryKind::pageable; }

HostBuffer::HostBuffer(HostMemoryKind kind, std::size_t bytes) : kind_(kind), bytes_(bytes) {
  switch (kind) {
    case HostMemoryKind::pageable:
      ptr_ = allocate_pages(bytes);
      break;
    case HostMemoryKind::registered:
      ptr_ = allocate_pages(bytes);
      if (const cudaError_t status = cudaHostRegister(ptr_, bytes, cudaHostRegisterPortable | cudaHostRegisterMapped);
          status != cudaSuccess) {
        std::free(ptr_);
        ptr_ = nullptr;
        throw_cuda_error(status, "cudaHostRegister(ptr, bytes, Portable | Mapped)", __FILE__, __LINE__,
                         std::to_string(bytes) + " bytes");
      }
      break;
    case HostMemoryKind::pinned:
      HDBENCH_CUDA_CHECK_DETAIL(cudaMallocHost(&ptr_, bytes), std::to_string(bytes) + " bytes");
      break;
    case HostMemoryKind::pinned_wc:
      HDBENCH_CUDA_CHECK_DETAIL(cudaHostAlloc(&ptr_, bytes, cudaHostAllocWriteCombined | cudaHostAllocMapped),
                                std::to_string(bytes) + " bytes");
      break;
    case HostMemoryKind::mapped:
      HDBENCH_CUDA_CHECK_DETAIL(cudaHostAlloc(&ptr_, bytes, cudaHostAllocMapped), std::to_string(bytes) + " bytes");
      break;
  }
  if (kind == HostMemoryKind::pinned) {
    // Plain cudaMallocHost memory is mapped only where unified addressing holds; the
    // alias is a convenience (GPU-side verification), so its absence is no error.
    if (cudaHostGetDevicePointer(&device_ptr_, ptr_, 0) != cudaSuccess) {
      device_ptr_ = nullptr;
      (void)cudaGetLastError();
    }
  } else if (is_device_accessible(kind)) {
    try {
      HDBENCH_CUDA_CHECK(cudaHostGetDevicePointer(&device_ptr_, ptr_, 0));
    } catch (...) {
      release();
      throw;
    }
  }
}

HostBuffer::~HostBuffer() { release(); }

void HostBuffer::release() noexcept {
  if (ptr_ == nullptr) return;
  switch (kind_) {
    case HostMemoryKind::pageable:
      std::free(ptr_);
      break;
    case HostMemoryKind::registered:
      HDBENCH_CUDA_CHECK_NOTHROW(cudaHostUnregister(ptr_));
      std::free(ptr_);
      break;
    case HostMemoryKind::pinned:
    case HostMemoryKind::pinned_wc:
    case HostMemoryKind::mapped:
      HDBENCH_CUDA_CHECK_NOTHROW(cudaFreeHost(ptr_));
      break;
  }
  ptr_ = nullptr;
  device_ptr_ = nullptr;
}

HostBuffer::HostBuffer(HostBuffer&& other) noexcept
    : kind_(other.kind_),
      ptr_(std::exchange(other.ptr_, nullptr)),
      device_ptr_(std::exchange(other.device_ptr_, nullptr)),
      bytes_(std::exchange(other.bytes_, 0)) {}

HostBuffer& HostBuffer::operator=(HostBuffer&& other) noexcept {
  if (this != &other) {
    release();
    kind_ = other.kind_;
    ptr_ = std::exchange(other.ptr_, nullptr);
    device_ptr_ = std::exchange(other.device_ptr_, nullptr);
    bytes_ = std::exchange(other.bytes_, 0);
  }
  return *this;
}

PageableBuffer::PageableBuffer(std::size_t bytes) : ptr_(allocate_pages(bytes)), bytes_(bytes) {}

PageableBuffer::~PageableBuffer() { std::free(ptr_); }

PageableBuffer::PageableBuffer(PageableBuffer&& other) noexcept
    : ptr_(std::exchange(other.ptr_, nullptr)), bytes_(std::exchange(other.bytes_, 0)) {}

PageableBuffer& PageableBuffer::operator=(PageableBuffer&& other) noexcept {
  if (this != &other) {
    std::free(ptr_);
    ptr_ = std::exchange(other.ptr_, nullptr);
    bytes_ = std::exchange(other.bytes_, 0);
  }
  return *this;
}

}  // namespace hdbench
