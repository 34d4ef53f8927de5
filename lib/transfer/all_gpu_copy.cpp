#include "transfer/all_gpu_copy.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <stdexcept>

#include "core/numa.hpp"
#include "core/spin_gate.hpp"

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
  Lane(int device_, Direction direction, std::size_t bytes, std::uint64_t seed, int numa_node, double spin_timeout_ms)
      : device(device_),
        stream(fmt::format("{}/gpu{}", to_string(direction), device_)),
        ends(make_ends(direction, bytes, seed, numa_node, stream.get())),
        gate(spin_timeout_ms) {}

  static TransferEndpoints make_ends(Direction direction, std::size_t bytes, std::uint64_t seed, int numa_node,
                                     cudaStream_t stream) {
    const numa::PreferredNodeScope placement(numa_node);  // the pinned pages are allocated and filled here
    return TransferEndpoints(HostMemoryKind::pinned, per_gpu_direction(direction), bytes, seed, stream);
  }

  int device;
  Stream stream;
  TransferEndpoints ends;
  SpinGate gate;
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
                       double spin_timeout_ms, const std::vector<int>& numa_nodes) {
  if (!is_all_gpus(direction)) throw std::invalid_argument("AllGpuCopy: direction is all_to_host or host_to_all");
  if (devices.empty()) throw std::invalid_argument("AllGpuCopy: no device selected");
  if (numa_nodes.size() != devices.size()) throw std::invalid_argument("AllGpuCopy: one NUMA node per device");
  for (std::size_t i = 0; i < devices.size(); ++i) {
    const DeviceScope scope(devices[i]);
    lanes_.push_back(std::make_unique<Lane>(devices[i], direction, bytes, seed, numa_nodes[i], spin_timeout_ms));
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
    const auto release_all = [this] {
      for (auto& lane : lanes_) lane->gate.release();  // every gate in one pass
    };
    try {
      for (auto& lane : lanes_) {
        HDBENCH_CUDA_CHECK(cudaSetDevice(lane->device));
        lane->gate.close_and_enqueue(lane->stream.get());
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
  for (auto& lane : lanes_) {
    const DeviceScope scope(lane->device);
    lane->stream.synchronize();
    sample.seconds.push_back(elapsed_ms(lane->start, lane->stop) / 1e3);
  }
  for (const auto& lane : lanes_) lane->gate.throw_if_timed_out("every GPU's copy was");
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
