// A device-to-device copy between two GPUs (cudaMemcpyPeerAsync), with peer access
// enabled or not (not: the driver stages it through host memory), in one direction
// or both at once (one stream per source device). The buffers are filled with the
// verification pattern before timing and checked after it. Never run on two GPUs.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "core/cuda.hpp"

namespace hdbench::p2p {

// Whether `from` can map `to`'s memory (cudaDeviceCanAccessPeer).
bool can_access_peer(int from, int to);

struct PeerSample {
  double forward_seconds = 0.0;   // src -> dst
  double backward_seconds = 0.0;  // dst -> src (both directions only)
  double span_seconds = 0.0;      // first start to last end
};

class PeerCopy {
 public:
  // Throws CudaError when peer access is asked for and cannot be enabled.
  PeerCopy(int src, int dst, std::size_t bytes, bool peer_access, bool both_directions, std::uint64_t seed);
  ~PeerCopy();
  PeerCopy(const PeerCopy&) = delete;
  PeerCopy& operator=(const PeerCopy&) = delete;

  PeerSample run_once();
  // Empty when every copied byte matches the pattern, else what differs.
  std::string verify();

 private:
  struct Side {
    int device = 0;
    DeviceBuffer source;
    DeviceBuffer target;
    Stream stream;
    Event start, stop;
  };
  void set_peer_access(bool enable);

  std::size_t bytes_;
  bool peer_access_;
  bool both_;
  std::uint64_t seed_;
  bool enabled_ = false;
  Side a_, b_;  // a: src device, b: dst device
};

}  // namespace hdbench::p2p
