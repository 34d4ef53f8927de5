// Host buffers of every kind the transfer family compares, behind one move-only owner.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace hdbench {

enum class HostMemoryKind {
  pageable,    // malloc'd (page-aligned); the driver stages copies through its own pinned buffers
  registered,  // pageable range page-locked in place with cudaHostRegister
  pinned,      // cudaMallocHost
  pinned_wc,   // cudaHostAlloc(WriteCombined | Mapped): fast for the GPU to read, slow for the CPU
  mapped,      // cudaHostAlloc(Mapped): zero-copy, kernels dereference it over PCIe
};

const char* to_string(HostMemoryKind kind) noexcept;
std::optional<HostMemoryKind> host_memory_kind_from_string(std::string_view name);
std::vector<HostMemoryKind> all_host_memory_kinds();
// True for kinds a kernel can dereference (device_pointer() is valid).
bool is_device_accessible(HostMemoryKind kind) noexcept;

class HostBuffer {
 public:
  HostBuffer() = default;
  // Allocates `bytes` of `kind`. Pageable memory is not touched here; callers fill it
  // (first touch) before timing. Throws CudaError or std::bad_alloc.
  HostBuffer(HostMemoryKind kind, std::size_t bytes);
  ~HostBuffer();
  HostBuffer(HostBuffer&& other) noexcept;
  HostBuffer& operator=(HostBuffer&& other) noexcept;
  HostBuffer(const HostBuffer&) = delete;
  HostBuffer& operator=(const HostBuffer&) = delete;

  void* data() const noexcept { return ptr_; }
  template <typename T>
  T* as() const noexcept {
    return static_cast<T*>(ptr_);
  }
  std::size_t size() const noexcept { return bytes_; }
  HostMemoryKind kind() const noexcept { return kind_; }
  // The device-side alias of a page-locked buffer (mapped, pinned_wc, registered,
  // pinned); nullptr for pageable memory.
  void* device_pointer() const noexcept { return device_ptr_; }

 private:
  void release() noexcept;

  HostMemoryKind kind_ = HostMemoryKind::pageable;
  void* ptr_ = nullptr;
  void* device_ptr_ = nullptr;
  std::size_t bytes_ = 0;
};

// Page-aligned pageable allocation without CUDA (host-only benchmarks, no GPU).
class PageableBuffer {
 public:
  PageableBuffer() = default;
  explicit PageableBuffer(std::size_t bytes);
  ~PageableBuffer();
  PageableBuffer(PageableBuffer&& other) noexcept;
  PageableBuffer& operator=(PageableBuffer&& other) noexcept;
  PageableBuffer(const PageableBuffer&) = delete;
  PageableBuffer& operator=(const PageableBuffer&) = delete;

  void* data() const noexcept { return ptr_; }
  template <typename T>
  T* as() const noexcept {
    return static_cast<T*>(ptr_);
  }
  std::size_t size() const noexcept { return bytes_; }

 private:
  void* ptr_ = nullptr;
  std::size_t bytes_ = 0;
};

}  // namespace hdbench
