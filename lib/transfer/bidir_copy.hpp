// Host→device and device→host at once, on two streams, started together: the copies
// queue behind a short spin kernel that the host releases once both are queued (as
// nvbandwidth does), so neither gets a head start from launch order. The spin kernel
// gives up after a timeout, and a timed-out sample is an error, not a figure.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "core/cuda.hpp"
#include "core/host_memory.hpp"
#include "core/spin_gate.hpp"
#include "transfer/transfer_axes.hpp"
#include "transfer/transfer_endpoints.hpp"

namespace hdbench {

struct BidirSample {
  double h2d_seconds = 0.0;      // start to end of the host→device copy
  double d2h_seconds = 0.0;      // start to end of the device→host copy
  double span_seconds = 0.0;     // first start to last end
  double overlap_seconds = 0.0;  // time both copies were running (0 if none)
};

class BidirectionalCopy {
 public:
  // `sm_blocks` per direction for the SM engine. Pageable copies block the thread
  // that issues them, so for pageable memory each direction is issued from its own
  // thread instead of behind the spin kernel (which would block the issuing thread
  // until the timeout).
  BidirectionalCopy(HostMemoryKind kind, Engine engine, std::size_t bytes, std::uint64_t seed, int sm_blocks,
                    double spin_timeout_ms);

  BidirSample run_once();
  // Empty when both destinations hold the pattern.
  std::string verify();

 private:
  void enqueue_both_behind_spin();
  void enqueue_both_from_two_threads();

  HostMemoryKind kind_;
  Engine engine_;
  int sm_blocks_;
  Stream h2d_stream_;
  Stream d2h_stream_;
  TransferEndpoints up_;
  TransferEndpoints down_;
  SpinGate gate_;
  Event origin_, up_start_, up_stop_, down_start_, down_stop_;
};

}  // namespace hdbench
