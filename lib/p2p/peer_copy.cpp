#include "p2p/peer_copy.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <utility>
#include <vector>

#include "core/host_pattern.hpp"

namespace hdbench::p2p {
namespace {

void fill_device(const DeviceBuffer& buffer, std::size_t bytes, std::uint64_t seed) {
  std::vector<unsigned char> host(bytes);
  fill_pattern_host(host.data(), bytes, seed);
  upload_bytes(buffer.data(), host.data(), bytes);
}

std::string check_device(const DeviceBuffer& buffer, std::size_t bytes, std::uint64_t seed, const std::string& what) {
  std::vector<unsigned char> host(bytes);
  HDBENCH_CUDA_CHECK(cudaMemcpy(host.data(), buffer.data(), bytes, cudaMemcpyDeviceToHost));
  if (const auto at = find_pattern_mismatch(host.data(), bytes, seed)) {
    return fmt::format("{}: byte {} of {} differs from the pattern", what, *at, bytes);
  }
  return "";
}

}  // namespace

bool can_access_peer(int from, int to) {
  int can = 0;
  HDBENCH_CUDA_CHECK(cudaDeviceCanAccessPeer(&can, from, to));
  return can != 0;
}

PeerCopy::PeerCopy(int src, int dst, std::size_t bytes, bool peer_access, bool both_directions, std::uint64_t seed)
    : bytes_(bytes), peer_access_(peer_access), both_(both_directions), seed_(seed) {
  const auto make_side = [bytes](Side& side, int device, const char* name) {
    HDBENCH_CUDA_CHECK(cudaSetDevice(device));
    side.device = device;
    side.source = DeviceBuffer(bytes);
    side.target = DeviceBuffer(bytes);
    side.stream = Stream(name);
    side.start = Event();
    side.stop = Event();
  };
  make_side(a_, src, "p2p/forward");
  make_side(b_, dst, "p2p/backward");
  fill_device(a_.source, bytes, seed_);
  fill_device(b_.source, bytes, seed_ + 1);
  set_peer_access(peer_access_);
}

PeerCopy::~PeerCopy() {
  if (!enabled_) return;
  cudaSetDevice(a_.device);
  HDBENCH_CUDA_CHECK_NOTHROW(cudaDeviceDisablePeerAccess(b_.device));
  cudaSetDevice(b_.device);
  HDBENCH_CUDA_CHECK_NOTHROW(cudaDeviceDisablePeerAccess(a_.device));
}

void PeerCopy::set_peer_access(bool enable) {
  if (!enable) return;
  for (const auto& [from, to] : {std::pair{a_.device, b_.device}, std::pair{b_.device, a_.device}}) {
    HDBENCH_CUDA_CHECK(cudaSetDevice(from));
    const cudaError_t status = cudaDeviceEnablePeerAccess(to, 0);
    if (status == cudaErrorPeerAccessAlreadyEnabled) {
      cudaGetLastError();  // clears it
    } else {
      HDBENCH_CUDA_CHECK(status);
    }
  }
  enabled_ = true;
}

PeerSample PeerCopy::run_once() {
  // Enqueued back to back, each on its source device's stream; the span is from the
  // earlier start to the later stop.
  HDBENCH_CUDA_CHECK(cudaSetDevice(a_.device));
  a_.start.record(a_.stream.get());
  HDBENCH_CUDA_CHECK(
      cudaMemcpyPeerAsync(b_.target.data(), b_.device, a_.source.data(), a_.device, bytes_, a_.stream.get()));
  a_.stop.record(a_.stream.get());
  if (both_) {
    HDBENCH_CUDA_CHECK(cudaSetDevice(b_.device));
    b_.start.record(b_.stream.get());
    HDBENCH_CUDA_CHECK(
        cudaMemcpyPeerAsync(a_.target.data(), a_.device, b_.source.data(), b_.device, bytes_, b_.stream.get()));
    b_.stop.record(b_.stream.get());
  }
  a_.stop.synchronize();
  PeerSample sample;
  sample.forward_seconds = 1e-3 * elapsed_ms(a_.start, a_.stop);
  sample.span_seconds = sample.forward_seconds;
  if (both_) {
    b_.stop.synchronize();
    sample.backward_seconds = 1e-3 * elapsed_ms(b_.start, b_.stop);
    // Events of two devices cannot be compared; the span is the longer direction.
    sample.span_seconds = std::max(sample.forward_seconds, sample.backward_seconds);
  }
  return sample;
}

std::string PeerCopy::verify() {
  HDBENCH_CUDA_CHECK(cudaSetDevice(b_.device));
  std::string problem = check_device(b_.target, bytes_, seed_, fmt::format("GPU {} -> GPU {}", a_.device, b_.device));
  if (problem.empty() && both_) {
    HDBENCH_CUDA_CHECK(cudaSetDevice(a_.device));
    problem = check_device(a_.target, bytes_, seed_ + 1, fmt::format("GPU {} -> GPU {}", b_.device, a_.device));
  }
  return problem;
}

}  // namespace hdbench::p2p
