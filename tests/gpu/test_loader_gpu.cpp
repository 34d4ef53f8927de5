// The loader feeding a GPU: the batches that arrive on the device equal the batches
// built on the host, for every pinning mode and worker count, with slots reused only
// after their copies finished; and the checksum kernel agrees with the host's sum.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cstring>
#include <numeric>
#include <thread>
#include <vector>

#include "core/spin_gate.hpp"
#include "core/timing.hpp"
#include "gpu_test_support.hpp"
#include "loader_kernels.hpp"
#include "pipeline/batch_plan.hpp"
#include "pipeline/device_feed.hpp"
#include "pipeline/loader.hpp"
#include "pipeline/sample_transform.hpp"

namespace hdbench {
namespace {

const Dataset& dataset() {
  static const Dataset d = make_synthetic_mnist(1000, 17);
  return d;
}

LoaderConfig config(PinMode mode, int workers, std::size_t batch, Augment augment = Augment::none,
                    BatchBuild build = BatchBuild::whole) {
  LoaderConfig c;
  c.build = build;
  c.batch_size = batch;
  c.workers = workers;
  c.prefetch_per_worker = 1;  // few slots: each is reused often, racing its copy if fences failed
  c.pin_mode = mode;
  c.seed = 3;
  c.transform = {augment, 0.0, 4};
  return c;
}

TEST(LoaderGpu, BatchesOnTheDeviceEqualTheBatchesBuiltOnTheHost) {
  SKIP_WITHOUT_GPU();
  const Dataset& d = dataset();
  const BatchLayout layout{d.pixels_per_sample()};
  for (PinMode mode : all_pin_modes()) {
    for (int workers : {0, 1, 4}) {
      for (Augment augment : all_augments()) {
        SCOPED_TRACE(testing::Message() << to_string(mode) << " workers " << workers << " " << to_string(augment));
        const LoaderConfig c = config(mode, workers, 96, augment);
        Loader loader(d, c);
        EXPECT_EQ(loader.pinned_bytes_held() > 0, mode != PinMode::pageable);
        Stream consumer("loader-test/consumer");
        DeviceFeed feed(layout.batch_bytes(c.batch_size), loader.slot_count(), "loader-test");
        HostBuffer arrived(HostMemoryKind::pinned, layout.batch_bytes(c.batch_size));
        std::vector<unsigned char> expected(layout.batch_bytes(c.batch_size));
        for (std::size_t epoch = 0; epoch < 2; ++epoch) {
          loader.start_epoch(epoch);
          std::size_t batches = 0;
          while (const auto batch = loader.next()) {
            EXPECT_EQ(batch->memory, mode == PinMode::pageable ? HostMemoryKind::pageable : HostMemoryKind::pinned);
            const std::vector<std::uint32_t> ids(batch->sample_ids, batch->sample_ids + batch->samples);
            const DeviceBatch on_device = feed.push(loader, *batch, consumer.get());
            std::memset(arrived.data(), 0xAB, arrived.size());  // poison: a short copy cannot pass
            HDBENCH_CUDA_CHECK(cudaMemcpyAsync(arrived.data(), on_device.data, on_device.bytes, cudaMemcpyDeviceToHost,
                                               consumer.get()));
            feed.consumed(on_device, consumer.get());
            consumer.synchronize();
            collate_batch(d, ids, epoch, c.transform, expected.data());
            ASSERT_EQ(on_device.bytes, batch->bytes);
            ASSERT_EQ(std::memcmp(arrived.data(), expected.data(), on_device.bytes), 0)
                << "batch " << on_device.index << " of epoch " << epoch;
            ++batches;
          }
          EXPECT_EQ(batches, loader.batches_per_epoch());
        }
      }
    }
  }
}

// Whole batches, and split ones (batch 128 on 3 workers is 2 parts, 256 is 3): the
// opener of a split batch runs the slot's fence before any part is written.
TEST(LoaderGpu, DeviceChecksumOfAnEpochEqualsTheReference) {
  SKIP_WITHOUT_GPU();
  const Dataset& d = dataset();
  for (PinMode mode : all_pin_modes()) {
    for (BatchBuild build : all_batch_builds()) {
      for (std::size_t batch_size : {std::size_t{128}, std::size_t{256}}) {
        SCOPED_TRACE(testing::Message() << to_string(mode) << " " << to_string(build) << " batch " << batch_size);
        const LoaderConfig c = config(mode, 3, batch_size, Augment::none, build);
        Loader loader(d, c);
        Stream consumer;
        DeviceFeed feed(BatchLayout{d.pixels_per_sample()}.batch_bytes(batch_size), loader.slot_count());
        DeviceBuffer total(sizeof(unsigned long long));
        fill_device_bytes(total.data(), 0, total.size());
        // Consumed without waiting on the host: copies, kernels and slot reuse overlap.
        loader.start_epoch(5);
        while (const auto batch = loader.next()) {
          const DeviceBatch on_device = feed.push(loader, *batch, consumer.get());
          kernels::add_word_sum(static_cast<const std::uint32_t*>(on_device.data), on_device.bytes / 4,
                                total.as<unsigned long long>(), consumer.get());
          feed.consumed(on_device, consumer.get());
        }
        consumer.synchronize();
        unsigned long long sum = 0;
        HDBENCH_CUDA_CHECK(cudaMemcpy(&sum, total.data(), sizeof(sum), cudaMemcpyDeviceToHost));
        const auto ids = delivered_ids(d.size(), batch_size, c.shuffle, c.drop_last, c.seed, 5);
        EXPECT_EQ(sum, epoch_checksum_reference(d, ids, 5, c.transform));
        EXPECT_EQ(loader.stats().parts_built > loader.batches_per_epoch(), build == BatchBuild::split);
      }
    }
  }
}

TEST(LoaderGpu, WordSumKernelMatchesTheHost) {
  SKIP_WITHOUT_GPU();
  for (std::size_t words :
       {std::size_t{1}, std::size_t{255}, std::size_t{257}, std::size_t{1} << 20, (std::size_t{1} << 22) + 3}) {
    std::vector<std::uint32_t> host(words);
    std::iota(host.begin(), host.end(), 0xFFFF0000u);
    DeviceBuffer device(words * 4);
    DeviceBuffer total(sizeof(unsigned long long));
    upload_bytes(device.data(), host.data(), words * 4);
    fill_device_bytes(total.data(), 0, total.size());
    kernels::add_word_sum(device.as<std::uint32_t>(), words, total.as<unsigned long long>(), nullptr);
    unsigned long long sum = 0;
    HDBENCH_CUDA_CHECK(cudaMemcpy(&sum, total.data(), sizeof(sum), cudaMemcpyDeviceToHost));
    EXPECT_EQ(sum, word_sum(host.data(), words * 4)) << words << " words";
  }
}

TEST(LoaderGpu, AFeedMadeForFewerSlotsRejectsTheBatch) {
  SKIP_WITHOUT_GPU();
  Loader loader(dataset(), config(PinMode::direct, 1, 32));
  DeviceFeed feed(BatchLayout{784}.batch_bytes(32), 1);
  Stream consumer;
  loader.start_epoch(0);
  bool rejected = false;
  while (const auto batch = loader.next()) {
    if (batch->slot >= 1) {
      EXPECT_THROW(feed.push(loader, *batch, consumer.get()), std::out_of_range);
      rejected = true;
      break;
    }
    feed.consumed(feed.push(loader, *batch, consumer.get()), consumer.get());
  }
  EXPECT_TRUE(rejected);
  consumer.synchronize();
}

// A builder waiting in a slot fence sleeps: its thread's CPU time stays well under the
// time it waited. The fence's event is held back by a gate the host opens 200 ms after
// the waiter started.
TEST(LoaderGpu, AFenceWaitSleepsInsteadOfSpinning) {
  SKIP_WITHOUT_GPU();
  Stream stream("loader-test/gate");
  SpinGate gate(10'000.0);
  gate.close_and_enqueue(stream.get());
  const Event fence = slot_fence_event();
  fence.record(stream.get());
  std::atomic<bool> started{false};
  double wall = 0.0;
  double cpu = 0.0;
  std::thread waiter([&] {
    started = true;
    const double cpu_start = thread_cpu_seconds();
    HostTimer timer;
    fence.synchronize();
    wall = timer.elapsed_seconds();
    cpu = thread_cpu_seconds() - cpu_start;
  });
  while (!started) std::this_thread::yield();
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  gate.release();
  waiter.join();
  stream.synchronize();
  gate.throw_if_timed_out("the fence's event was");
  EXPECT_GE(wall, 0.19);
  EXPECT_LT(cpu, 0.5 * wall) << "the fence spun for " << cpu << " s of CPU in its " << wall << " s wait";
}

}  // namespace
}  // namespace hdbench
