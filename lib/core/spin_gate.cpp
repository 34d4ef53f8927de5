#include "core/spin_gate.hpp"

#include <fmt/format.h>

#include <atomic>
#include <stdexcept>

#include "transfer_kernels.hpp"

namespace hdbench {

SpinGate::SpinGate(double timeout_ms)
    : timeout_ns_(static_cast<std::uint64_t>(timeout_ms * 1e6)), flags_(HostMemoryKind::mapped, 2 * sizeof(int)) {}

void SpinGate::close_and_enqueue(cudaStream_t stream) {
  volatile int* flags = flags_.as<volatile int>();
  flags[0] = 0;
  flags[1] = 0;
  auto* device_flags = static_cast<int*>(flags_.device_pointer());
  kernels::spin_until_released(device_flags, device_flags + 1, timeout_ns_, stream);
}

void SpinGate::release() {
  std::atomic_thread_fence(std::memory_order_seq_cst);
  flags_.as<volatile int>()[0] = 1;
}

void SpinGate::throw_if_timed_out(std::string_view what_was_queued) const {
  if (flags_.as<volatile int>()[1] == 0) return;
  throw std::runtime_error(
      fmt::format("the spin kernel timed out after {} ms before {} queued; the sample is void. "
                  "What to do: raise --hdbench_spin_timeout_ms, or check that the host is not overloaded",
                  static_cast<double>(timeout_ns_) / 1e6, what_was_queued));
}

}  // namespace hdbench
