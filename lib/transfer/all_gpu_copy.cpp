#include "transfer/all_gpu_copy.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <atomic>
#include <stdexcept>

#include "core/numa.hpp"
#include "transfer_kernels.hpp"

namespace hdbench {
namespace {

// Sets the current device for a scope and puts the previous one back.
class DeviceScope {
 public:
  explicit DeviceScope(int device) {
    HDBENCH_CUDA_CHECK(cudaGetDevice(&previous_));
    HDBENCH_CUDA_CHECK(cudaSetDevice(device));
  }
  ~DeviceScope() { cudaSetDevice(previous_); }
  DeviceScope(const DeviceScope&) = delete;
  DeviceScope& operator=(const DeviceScope&) = delete;

 private:
  int previous_ = 0;
};

}  // namespace

// Members are created with the lane's device current (streams, events and buffers
// belong to the device current at creation).
struct AllGpuCopy::Lane {
  Lane(int device_, Direction direction, std::size_t bytes, std::uint64_t seed, int numa_node)
      : device(device_),
        stream(fmt::format("{}/gpu{}", to_string(direction), device_)),
        ends(make_ends(direction, bytes, seed, numa_node, stream.get())),
        gate(HostMemoryKind::mapped, 2 * sizeof(int)) {}

  static TransferEndpoints make_ends(Direction direction, std::size_t bytes, std::uint64_t seed, int numa_node,
                                     cudaStream_t stream) {
    const numa::PreferredNodeScope placement(numa_node);  // the pinned pages are allocated and filled here
    return TransferEndpoints(HostMemoryKind::pinned, per_gpu_direction(direction), bytes, seed, stream);
  }

  int device;
  Stream stream;
  TransferEndpoints ends;
  HostBuffer gate;  // mapped: [0] release flag, [1] timed-out flag
  Event start, stop;
};

double AllGpuSample::slowest_seconds() const {
  return seconds.empty() ? 0.0 : *std::max_element(seconds.begin(), seconds.end());
}

double AllGpuSample::sum_gbps(std::size_t bytes) const {
  double sum = 0.0;
  for (double s : seconds) {
    if (s > 0.0) sum += static_cast<double>(bytes) / s / 1e9;
  }
  return sum;
}

AllGpuCopy::AllGpuCopy(const std::vector<int>& devices, Direction direction, std::size_t bytes, std::uint64_t seed,
                       double spin_timeout_ms, const std::vector<int>& numa_nodes)
    : timeout_ns_(static_cast<std::uint64_t>(spin_timeout_ms * 1e6)) {
  if (!is_all_gpus(direction)) throw std::invalid_argument("AllGpuCopy: direction is all_to_host or host_to_all");
  if (devices.empty()) throw std::invalid_argument("AllGpuCopy: no device selected");
  if (numa_nodes.size() != devices.size()) throw std::invalid_argument("AllGpuCopy: one NUMA node per device");
  for (std::size_t i = 0; i < devices.size(); ++i) {
    const DeviceScope scope(devices[i]);
    lanes_.push_back(std::make_unique<Lane>(devices[i], direction, bytes, seed, numa_nodes[i]));
  }
}

AllGpuCopy::~AllGpuCopy() {
  // Each lane's resources are released with its own device current.
  int previous = 0;
  cudaGetDevice(&previous);
  for (auto& lane : lanes_) {
    cudaSetDevice(lane->device);
    lane.reset();
  }
  cudaSetDevice(previous);
}

int AllGpuCopy::device(std::size_t lane) const { return lanes_.at(lane)->device; }
const HostBuffer& AllGpuCopy::host(std::size_t lane) const { return lanes_.at(lane)->ends.host(); }

std::vector<double> AllGpuCopy::alone_seconds(std::size_t lane, int repetitions) {
  Lane& l = *lanes_.at(lane);
  const DeviceScope scope(l.device);
  std::vector<double> seconds;
  for (int i = 0; i < repetitions; ++i) {
    l.start.record(l.stream.get());
    l.ends.enqueue_copy(Engine::copy, 0, l.stream.get());
    l.stop.record(l.stream.get());
    seconds.push_back(elapsed_ms(l.start, l.stop) / 1e3);
  }
  return seconds;
}

AllGpuSample AllGpuCopy::run_together() {
  {
    const DeviceScope restore(lanes_.front()->device);
    for (auto& lane : lanes_) lane->gate.as<volatile int>()[0] = 0;
    const auto release_all = [this] {
      std::atomic_thread_fence(std::memory_order_seq_cst);
      for (auto& lane : lanes_) lane->gate.as<volatile int>()[0] = 1;  // every gate in one pass
    };
    try {
      for (auto& lane : lanes_) {
        HDBENCH_CUDA_CHECK(cudaSetDevice(lane->device));
        lane->gate.as<volatile int>()[1] = 0;
        auto* device_flags = static_cast<int*>(lane->gate.device_pointer());
        kernels::spin_until_released(device_flags, device_flags + 1, timeout_ns_, lane->stream.get());
        lane->start.record(lane->stream.get());
        lane->ends.enqueue_copy(Engine::copy, 0, lane->stream.get());
        lane->stop.record(lane->stream.get());
      }
    } catch (...) {
      release_all();  // gates already queued must not hold their GPUs until the timeout
      throw;
    }
    release_all();
  }
  AllGpuSample sample;
  bool timed_out = false;
  for (auto& lane : lanes_) {
    const DeviceScope scope(lane->device);
    lane->stream.synchronize();
    timed_out = timed_out || lane->gate.as<volatile int>()[1] != 0;
    sample.seconds.push_back(elapsed_ms(lane->start, lane->stop) / 1e3);
  }
  if (timed_out) {
    throw std::runtime_error(
        fmt::format("a spin kernel timed out after {} ms before every GPU's copy was queued; the sample is void. "
                    "What to do: raise --hdbench_spin_timeout_ms, or check that the host is not overloaded",
                    static_cast<double>(timeout_ns_) / 1e6));
  }
  return sample;
}

std::string AllGpuCopy::verify() {
  for (auto& lane : lanes_) {
    const DeviceScope scope(lane->device);
    if (std::string problem = lane->ends.verify(lane->stream.get()); !problem.empty()) {
      return fmt::format("GPU {}: {}", lane->device, problem);
    }
  }
  return {};
}

}  // namespace hdbench
