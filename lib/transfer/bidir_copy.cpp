#include "transfer/bidir_copy.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <exception>
#include <latch>
#include <stdexcept>
#include <thread>

namespace hdbench {
namespace {

double seconds_between(const Event& a, const Event& b) { return elapsed_ms(a, b) / 1e3; }

}  // namespace

BidirectionalCopy::BidirectionalCopy(HostMemoryKind kind, Engine engine, std::size_t bytes, std::uint64_t seed,
                                     int sm_blocks, double spin_timeout_ms)
    : kind_(kind),
      engine_(engine),
      sm_blocks_(sm_blocks),
      h2d_stream_("h2d"),
      d2h_stream_("d2h"),
      up_(kind, Direction::h2d, bytes, seed, h2d_stream_.get()),
      down_(kind, Direction::d2h, bytes, seed, d2h_stream_.get()),
      gate_(spin_timeout_ms) {
  if (engine == Engine::sm && !up_.kernel_accessible()) {
    throw std::invalid_argument(fmt::format("{} memory cannot be mapped for a kernel", to_string(kind)));
  }
}

void BidirectionalCopy::enqueue_both_behind_spin() {
  gate_.close_and_enqueue(h2d_stream_.get());
  origin_.record(h2d_stream_.get());
  HDBENCH_CUDA_CHECK(cudaStreamWaitEvent(d2h_stream_.get(), origin_.get(), 0));
  up_start_.record(h2d_stream_.get());
  up_.enqueue_copy(engine_, sm_blocks_, h2d_stream_.get());
  up_stop_.record(h2d_stream_.get());
  down_start_.record(d2h_stream_.get());
  down_.enqueue_copy(engine_, sm_blocks_, d2h_stream_.get());
  down_stop_.record(d2h_stream_.get());
  gate_.release();
}

void BidirectionalCopy::enqueue_both_from_two_threads() {
  origin_.record(h2d_stream_.get());
  HDBENCH_CUDA_CHECK(cudaStreamWaitEvent(d2h_stream_.get(), origin_.get(), 0));
  std::latch go(2);
  std::exception_ptr failure;
  {
    std::jthread other([&] {
      try {
        go.arrive_and_wait();
        down_start_.record(d2h_stream_.get());
        down_.enqueue_copy(engine_, sm_blocks_, d2h_stream_.get());
        down_stop_.record(d2h_stream_.get());
      } catch (...) {
        failure = std::current_exception();
      }
    });
    go.arrive_and_wait();
    up_start_.record(h2d_stream_.get());
    up_.enqueue_copy(engine_, sm_blocks_, h2d_stream_.get());
    up_stop_.record(h2d_stream_.get());
  }
  if (failure) std::rethrow_exception(failure);
}

BidirSample BidirectionalCopy::run_once() {
  const bool spin = kind_ != HostMemoryKind::pageable;
  if (spin) {
    enqueue_both_behind_spin();
  } else {
    enqueue_both_from_two_threads();
  }
  h2d_stream_.synchronize();
  d2h_stream_.synchronize();
  if (spin) gate_.throw_if_timed_out("both copies were");
  // Every event is measured from `origin`, which both streams wait on, so all
  // offsets are non-negative and comparable.
  const double up_begin = seconds_between(origin_, up_start_);
  const double up_end = seconds_between(origin_, up_stop_);
  const double down_begin = seconds_between(origin_, down_start_);
  const double down_end = seconds_between(origin_, down_stop_);
  BidirSample sample;
  sample.h2d_seconds = up_end - up_begin;
  sample.d2h_seconds = down_end - down_begin;
  sample.span_seconds = std::max(up_end, down_end) - std::min(up_begin, down_begin);
  sample.overlap_seconds = std::max(0.0, std::min(up_end, down_end) - std::max(up_begin, down_begin));
  return sample;
}

std::string BidirectionalCopy::verify() {
  std::string problem = up_.verify(h2d_stream_.get());
  if (!problem.empty()) return "host→device: " + problem;
  problem = down_.verify(d2h_stream_.get());
  if (!problem.empty()) return "device→host: " + problem;
  return {};
}

}  // namespace hdbench
