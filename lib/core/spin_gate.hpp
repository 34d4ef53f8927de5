// A host-released gate in front of device work, as nvbandwidth starts concurrent copies:
// a spin kernel queued on a stream holds the work behind it until the host flips a flag
// in mapped memory, or gives up after a timeout and says so. Work queued behind several
// gates (streams, GPUs) then starts together when the host releases them in one pass.
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>
#include <string_view>

#include "core/host_memory.hpp"

namespace hdbench {

class SpinGate {
 public:
  // Mapped host flags, allocated with the current device (the one the gate's stream is on).
  explicit SpinGate(double timeout_ms);

  // Closes the gate and queues the spin kernel on `stream` (of the current device).
  void close_and_enqueue(cudaStream_t stream);
  // Opens the gate: the spin kernel returns and the work behind it starts.
  void release();
  // After the stream has run: throws when the spin kernel gave up before release(),
  // naming what was being queued ("both copies were", "every GPU's copy was").
  void throw_if_timed_out(std::string_view what_was_queued) const;

 private:
  std::uint64_t timeout_ns_;
  HostBuffer flags_;  // mapped: [0] release flag, [1] timed-out flag
};

}  // namespace hdbench
