// The loader's delivery contract, checked without a GPU for whole and split batch
// builds: every sample exactly once per epoch, sampler order when in order, drop_last,
// batch bytes equal to an independent collation, fences run before a slot is
// rewritten, clean stops, worker failures reaching the consumer, and no deadlock for
// any worker count.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <random>
#include <thread>
#include <vector>

#include "pipeline/batch_plan.hpp"
#include "pipeline/loader.hpp"
#include "pipeline/sample_transform.hpp"

namespace hdbench {
namespace {

const Dataset& small_dataset() {
  static const Dataset dataset = make_synthetic_mnist(517, 42);  // prime-ish: short final batches
  return dataset;
}

LoaderConfig config_for(std::size_t batch, int workers, bool shuffle = true, bool drop_last = false,
                        bool in_order = true, BatchBuild build = BatchBuild::whole) {
  LoaderConfig c;
  c.build = build;
  c.batch_size = batch;
  c.workers = workers;
  c.shuffle = shuffle;
  c.drop_last = drop_last;
  c.in_order = in_order;
  c.seed = 7;
  c.transform.seed = 11;
  return c;
}

struct Delivered {
  std::vector<std::uint32_t> ids;  // in delivery order
  std::vector<std::size_t> batch_sizes;
  std::vector<std::size_t> batch_indices;
};

Delivered run_epoch(Loader& loader, std::size_t epoch, std::size_t stop_after = SIZE_MAX) {
  Delivered d;
  loader.start_epoch(epoch);
  while (d.batch_sizes.size() < stop_after) {
    const std::optional<Batch> batch = loader.next();
    if (!batch) break;
    EXPECT_EQ(batch->epoch, epoch);
    d.ids.insert(d.ids.end(), batch->sample_ids, batch->sample_ids + batch->samples);
    d.batch_sizes.push_back(batch->samples);
    d.batch_indices.push_back(batch->index);
    loader.release();
  }
  return d;
}

std::size_t thread_count() {
  std::size_t n = 0;
  for ([[maybe_unused]] const auto& entry : std::filesystem::directory_iterator("/proc/self/task")) ++n;
  return n;
}

// The thread count once joined threads have left /proc. pthread_join returns when
// the kernel clears the thread's tid, which is before the task is unlinked from the
// thread group, so a joined thread can still be listed for a moment (CI saw it under
// ASan). Polls until the count is `expected`, giving up after 10 s and returning what
// it sees then: a thread that is really left running still fails the check.
std::size_t settled_thread_count(std::size_t expected) {
  const auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  std::size_t n = thread_count();
  while (n != expected && std::chrono::steady_clock::now() < give_up) {
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
    n = thread_count();
  }
  return n;
}

// The thread count once it has held still for 200 ms (at most 10 s): the baseline a
// test compares with, so a thread an earlier test joined, still listed for a moment,
// is not counted as this process's own. CI once counted one and failed 11 checks.
std::size_t quiet_thread_count() {
  const auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  std::size_t n = thread_count();
  auto held_since = std::chrono::steady_clock::now();
  while (std::chrono::steady_clock::now() < give_up &&
         std::chrono::steady_clock::now() - held_since < std::chrono::milliseconds(200)) {
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
    const std::size_t now = thread_count();
    if (now != n) {
      n = now;
      held_since = std::chrono::steady_clock::now();
    }
  }
  return n;
}

TEST(LoaderDelivery, EverySampleExactlyOncePerEpochForEveryShape) {
  const Dataset& data = small_dataset();
  for (BatchBuild build : all_batch_builds()) {
    for (int workers : {0, 1, 2, 3, 8}) {
      for (std::size_t batch : {1, 7, 64, 600}) {
        for (bool shuffle : {false, true}) {
          for (bool drop_last : {false, true}) {
            for (bool in_order : {true, false}) {
              SCOPED_TRACE(testing::Message()
                           << to_string(build) << " workers " << workers << " batch " << batch << " shuffle " << shuffle
                           << " drop_last " << drop_last << " in_order " << in_order);
              Loader loader(data, config_for(batch, workers, shuffle, drop_last, in_order, build));
              for (std::size_t epoch : {0, 1}) {
                const Delivered d = run_epoch(loader, epoch);
                std::vector<std::uint32_t> expected = delivered_ids(data.size(), batch, shuffle, drop_last, 7, epoch);
                ASSERT_EQ(d.batch_sizes.size(), loader.batches_per_epoch());
                if (in_order) {
                  EXPECT_EQ(d.ids, expected);  // sampler order, batch after batch
                }
                std::vector<std::uint32_t> got = d.ids;
                std::sort(got.begin(), got.end());
                std::sort(expected.begin(), expected.end());
                EXPECT_EQ(got, expected);
                for (std::size_t b = 0; b < d.batch_sizes.size(); ++b) {
                  EXPECT_EQ(d.batch_sizes[b], samples_in_batch(expected.size(), batch, d.batch_indices[b]));
                  if (drop_last) {
                    EXPECT_EQ(d.batch_sizes[b], batch);
                  }
                }
              }
            }
          }
        }
      }
    }
  }
}

TEST(LoaderDelivery, DropLastLeavesOutOnlyTheShortBatch) {
  const Dataset& data = small_dataset();
  Loader keep(data, config_for(100, 2, true, false));
  Loader drop(data, config_for(100, 2, true, true));
  EXPECT_EQ(keep.batches_per_epoch(), 6u);  // 517 = 5 × 100 + 17
  EXPECT_EQ(drop.batches_per_epoch(), 5u);
  EXPECT_EQ(run_epoch(keep, 0).ids.size(), 517u);
  EXPECT_EQ(run_epoch(drop, 0).ids.size(), 500u);
}

TEST(LoaderDelivery, BatchBytesEqualAnIndependentCollation) {
  const Dataset& data = small_dataset();
  // Batch 200 on 3 split workers is 3 parts of 66-67 samples; the final batch of 117
  // is one part (under two parts' minimum).
  const std::pair<std::size_t, BatchBuild> shapes[] = {{33, BatchBuild::whole}, {200, BatchBuild::split}};
  for (const auto& [batch, build] : shapes) {
    for (Augment augment : all_augments()) {
      SCOPED_TRACE(testing::Message() << to_string(build) << " " << to_string(augment));
      LoaderConfig c = config_for(batch, 3, true, false, true, build);
      c.transform.augment = augment;
      Loader loader(data, c);
      loader.start_epoch(2);
      const BatchLayout layout{data.pixels_per_sample()};
      std::vector<unsigned char> expected(layout.batch_bytes(batch));
      std::uint64_t sum = 0;
      while (const auto batch = loader.next()) {
        ASSERT_EQ(batch->bytes, layout.batch_bytes(batch->samples));
        const std::vector<std::uint32_t> ids(batch->sample_ids, batch->sample_ids + batch->samples);
        collate_batch(data, ids, 2, c.transform, expected.data());
        ASSERT_EQ(std::memcmp(batch->data, expected.data(), batch->bytes), 0) << "batch " << batch->index;
        const auto* labels = reinterpret_cast<const std::int32_t*>(static_cast<const unsigned char*>(batch->data) +
                                                                   layout.image_bytes(batch->samples));
        for (std::size_t i = 0; i < batch->samples; ++i) EXPECT_EQ(labels[i], data.labels[ids[i]]);
        sum += word_sum(batch->data, batch->bytes);
        loader.release();
      }
      EXPECT_EQ(sum,
                epoch_checksum_reference(data, delivered_ids(data.size(), batch, true, false, 7, 2), 2, c.transform));
    }
  }
}

TEST(LoaderDelivery, CollatingPartsMakesTheBytesOfTheWholeBatch) {
  const Dataset& data = small_dataset();
  const std::vector<std::uint32_t> ids = {5, 9, 100, 3, 516, 0, 42};
  TransformConfig config{Augment::crop_flip, 0.0, 3};
  const BatchLayout layout{data.pixels_per_sample()};
  std::vector<unsigned char> whole(layout.batch_bytes(ids.size()));
  std::vector<unsigned char> parts(whole.size(), 0xAB);
  collate_batch(data, ids, 1, config, whole.data());
  // Out of order, as workers finish them.
  collate_samples(data, ids, 4, 7, 1, config, parts.data());
  collate_samples(data, ids, 0, 2, 1, config, parts.data());
  collate_samples(data, ids, 2, 4, 1, config, parts.data());
  EXPECT_EQ(parts, whole);
}

TEST(LoaderParts, SplitBatchesHaveAPartAWorkerButNoneUnderTheMinimum) {
  EXPECT_EQ(parts_per_batch(BatchBuild::whole, 8, 4096), 1u);
  EXPECT_EQ(parts_per_batch(BatchBuild::split, 0, 4096), 1u);
  EXPECT_EQ(parts_per_batch(BatchBuild::split, 1, 4096), 1u);
  EXPECT_EQ(parts_per_batch(BatchBuild::split, 8, 1024), 8u);
  EXPECT_EQ(parts_per_batch(BatchBuild::split, 16, 1024), 1024 / kMinSamplesPerPart);
  EXPECT_EQ(parts_per_batch(BatchBuild::split, 8, 128), 2u);
  EXPECT_EQ(parts_per_batch(BatchBuild::split, 8, 2 * kMinSamplesPerPart - 1), 1u);
  EXPECT_EQ(parts_per_batch(BatchBuild::split, 8, 1), 1u);
}

TEST(LoaderParts, EveryBatchIsBuiltInItsParts) {
  const Dataset& data = small_dataset();
  for (BatchBuild build : all_batch_builds()) {
    for (int workers : {0, 2, 4}) {
      SCOPED_TRACE(testing::Message() << to_string(build) << " workers " << workers);
      LoaderConfig c = config_for(256, workers, true, false, true, build);  // 517 = 256 + 256 + 5
      Loader loader(data, c);
      run_epoch(loader, 0);
      std::size_t parts = 0;
      for (std::size_t b = 0; b < loader.batches_per_epoch(); ++b) {
        parts += parts_per_batch(build, workers, samples_in_batch(data.size(), 256, b));
      }
      EXPECT_EQ(loader.stats().parts_built, parts);
      EXPECT_EQ(parts, build == BatchBuild::split && workers >= 2 ? 2u * std::min<std::size_t>(workers, 4) + 1 : 3u);
    }
  }
}

TEST(LoaderDelivery, ShuffleIsDeterministicAndDiffersBetweenEpochs) {
  const auto a = epoch_order(1000, true, 5, 0);
  EXPECT_EQ(a, epoch_order(1000, true, 5, 0));
  EXPECT_NE(a, epoch_order(1000, true, 5, 1));
  EXPECT_NE(a, epoch_order(1000, true, 6, 0));
  auto sorted = a;
  std::sort(sorted.begin(), sorted.end());
  EXPECT_EQ(sorted, epoch_order(1000, false, 5, 0));
  EXPECT_NE(a, sorted);
}

TEST(LoaderFences, AFenceRunsBeforeItsSlotIsRewritten) {
  const Dataset& data = small_dataset();
  for (BatchBuild build : all_batch_builds()) {
    for (int workers : {0, 1, 4}) {
      SCOPED_TRACE(testing::Message() << to_string(build) << " workers " << workers);
      LoaderConfig c = config_for(build == BatchBuild::split ? 128 : 16, workers, true, false, true, build);
      const PinMode mode = PinMode::pageable;
      c.pin_mode = mode;
      Loader loader(data, c);
      std::atomic<int> ran{0};
      std::atomic<int> rewritten_early{0};
      for (std::size_t epoch = 0; epoch < 3; ++epoch) {
        loader.start_epoch(epoch);
        while (const auto batch = loader.next()) {
          // The fence checks the slot still holds this batch: nobody wrote it before
          // the fence said the (pretend) copy was done.
          const std::uint64_t sum = word_sum(batch->data, batch->bytes);
          loader.release([&, data_ptr = batch->data, bytes = batch->bytes, sum] {
            if (word_sum(data_ptr, bytes) != sum) ++rewritten_early;
            ++ran;
          });
        }
      }
      EXPECT_EQ(rewritten_early.load(), 0);
      // Every slot reused after its release ran its fence; at most slot_count() fences
      // are still pending at the end.
      const int released = static_cast<int>(3 * loader.batches_per_epoch());
      EXPECT_GE(ran.load(), released - static_cast<int>(loader.slot_count()));
      EXPECT_LE(ran.load(), released);
    }
  }
}

TEST(LoaderShutdown, StoppingMidEpochLeavesNoThreadAndNoMemory) {
  const Dataset& data = small_dataset();
  const std::size_t threads_before = quiet_thread_count();
  ASSERT_EQ(live_loader_slot_bytes(), 0u);
  for (int workers : {0, 1, 4, 16}) {
    for (BatchBuild build : all_batch_builds()) {
      // Split batch 128 is 2 parts: workers are mid-part when the loader goes.
      LoaderConfig c = config_for(build == BatchBuild::split ? 128 : 8, workers, true, false, true, build);
      c.transform.cost_us = 5.0;  // workers are mid-batch when the loader goes
      Loader loader(data, c);
      EXPECT_GT(live_loader_slot_bytes(), 0u);
      EXPECT_EQ(loader.host_bytes_held(), planned_slot_bytes(c, data.pixels_per_sample()));
      // Settled: a thread the last loader joined can stay listed in /proc/self/task for a
      // moment after its join returns (the kernel wakes the joiner before it unlists the
      // thread), which failed this check once in a ctest run on the 2-core VM.
      // The workers and, with workers, the sampler thread.
      const std::size_t expected = threads_before + static_cast<std::size_t>(workers) + (workers > 0 ? 1 : 0);
      EXPECT_EQ(settled_thread_count(expected), expected);
      run_epoch(loader, 0, 3);
    }
    EXPECT_EQ(live_loader_slot_bytes(), 0u);
    EXPECT_EQ(settled_thread_count(threads_before), threads_before);
  }
}

// Waits (at most 10 s: the sampler thread is never scheduled otherwise) until the loader
// holds `epoch`'s order shuffled ahead.
bool order_prepared(const Loader& loader, std::size_t epoch) {
  const auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (loader.prepared_epoch() != epoch) {
    if (std::chrono::steady_clock::now() > give_up) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  return true;
}

// The sampler thread shuffles the next epoch while one runs: start_epoch() of that epoch
// takes it, any other epoch shuffles its own, and every epoch delivers its sampler order.
TEST(LoaderSampler, TheNextEpochsOrderIsShuffledAheadAndTakenOnlyByItsEpoch) {
  const Dataset& data = small_dataset();
  for (BatchBuild build : all_batch_builds()) {
    SCOPED_TRACE(to_string(build));
    Loader loader(data, config_for(8, 3, true, false, true, build));
    const auto expect_order = [&](std::size_t epoch) {
      EXPECT_EQ(run_epoch(loader, epoch).ids, delivered_ids(data.size(), 8, true, false, 7, epoch)) << epoch;
    };
    ASSERT_TRUE(order_prepared(loader, 0));  // asked for at construction
    expect_order(0);
    EXPECT_EQ(loader.stats().epochs_prepared, 1u);
    ASSERT_TRUE(order_prepared(loader, 1));
    expect_order(1);
    EXPECT_EQ(loader.stats().epochs_prepared, 2u);
    ASSERT_TRUE(order_prepared(loader, 2));
    expect_order(5);  // not the prepared one: shuffled in start_epoch, the prepared 2 dropped
    EXPECT_EQ(loader.stats().epochs_prepared, 2u);
    ASSERT_TRUE(order_prepared(loader, 6));
    expect_order(6);
    expect_order(6);  // again, right away: whatever the sampler holds by then, the same order
    EXPECT_GE(loader.stats().epochs_prepared, 3u);
  }
  // Without workers everything is the consumer's: no sampler thread, nothing prepared.
  Loader alone(data, config_for(8, 0));
  run_epoch(alone, 0);
  EXPECT_FALSE(alone.prepared_epoch().has_value());
  EXPECT_EQ(alone.stats().epochs_prepared, 0u);
}

TEST(LoaderShutdown, StopThenNextThrowsAndStopIsIdempotent) {
  Loader loader(small_dataset(), config_for(8, 2));
  loader.start_epoch(0);
  ASSERT_TRUE(loader.next().has_value());
  loader.stop();
  loader.stop();
  EXPECT_THROW(loader.next(), LoaderError);
}

TEST(LoaderShutdown, StartingAnEpochAbandonsTheRestOfTheCurrentOne) {
  const Dataset& data = small_dataset();
  for (BatchBuild build : all_batch_builds()) {
    const std::size_t batch = build == BatchBuild::split ? 130 : 10;  // split: 2 parts a batch
    for (int workers : {0, 2, 5}) {
      SCOPED_TRACE(testing::Message() << to_string(build) << " workers " << workers);
      Loader loader(data, config_for(batch, workers, true, false, true, build));
      run_epoch(loader, 0, 2);
      const Delivered d = run_epoch(loader, 1);
      EXPECT_EQ(d.ids, delivered_ids(data.size(), batch, true, false, 7, 1));
    }
  }
}

TEST(LoaderErrors, AWorkerFailureReachesTheConsumerWithItsMessage) {
  const Dataset& data = small_dataset();
  // Whole batches of 8, and split ones of 128 (two parts: the other workers are mid-part
  // or waiting for one when the opener's fence fails).
  const std::pair<std::size_t, BatchBuild> shapes[] = {{8, BatchBuild::whole}, {128, BatchBuild::split}};
  for (const auto& [batch, build] : shapes) {
    for (int workers : {0, 1, 3}) {
      SCOPED_TRACE(testing::Message() << to_string(build) << " workers " << workers);
      const std::size_t threads_before = quiet_thread_count();
      {
        LoaderConfig c = config_for(batch, workers, true, false, true, build);
        c.prefetch_per_worker = 1;  // few slots: the failing one is reused within the 5 split batches
        Loader loader(data, c);
        loader.start_epoch(0);
        ASSERT_TRUE(loader.next().has_value());
        // The builder that reuses this slot runs the fence first, and it fails as a
        // failed copy's event wait would.
        loader.release([] { throw std::runtime_error("copy of batch failed: cudaErrorLaunchFailure"); });
        std::string message;
        try {
          while (loader.next()) loader.release();
        } catch (const LoaderError& error) {
          message = error.what();
        }
        EXPECT_THAT(message, testing::HasSubstr("cudaErrorLaunchFailure"));
        EXPECT_THAT(message, testing::HasSubstr(workers == 0 ? "consumer thread" : "loader/worker"));
        EXPECT_THROW(loader.next(), LoaderError);                         // stays failed
        EXPECT_EQ(settled_thread_count(threads_before), threads_before);  // and has stopped its threads
      }
      EXPECT_EQ(live_loader_slot_bytes(), 0u);
    }
  }
}

TEST(LoaderErrors, BadParametersAreRejectedWithTheField) {
  const Dataset& data = small_dataset();
  auto message_for = [&](LoaderConfig c) {
    try {
      Loader loader(data, c);
    } catch (const std::invalid_argument& error) {
      return std::string(error.what());
    }
    return std::string("accepted");
  };
  LoaderConfig c = config_for(0, 1);
  EXPECT_THAT(message_for(c), testing::HasSubstr("batch size"));
  c = config_for(8, -1);
  EXPECT_THAT(message_for(c), testing::HasSubstr("workers"));
  c = config_for(8, 1);
  c.prefetch_per_worker = 0;
  EXPECT_THAT(message_for(c), testing::HasSubstr("prefetch"));
  c = config_for(8, 1);
  c.transform.cost_us = -1.0;
  EXPECT_THAT(message_for(c), testing::HasSubstr("cost"));
  Dataset empty;
  EXPECT_THROW(Loader(empty, config_for(8, 1)), std::invalid_argument);
  EXPECT_EQ(live_loader_slot_bytes(), 0u);
}

TEST(LoaderStress, ManyShortEpochsWithRandomStopPoints) {
  const Dataset smaller = make_synthetic_mnist(97, 3);
  const Dataset larger = make_synthetic_mnist(300, 3);
  std::mt19937 rng(20261120);
  for (int round = 0; round < 60; ++round) {
    const int workers = std::uniform_int_distribution<int>(0, 12)(rng);
    const BatchBuild build = rng() % 2 == 0 ? BatchBuild::whole : BatchBuild::split;
    // Split batches of up to 4 parts (the minimum part is 64 samples); the set is 97 or 300.
    const std::size_t batch = std::uniform_int_distribution<std::size_t>(1, build == BatchBuild::split ? 260 : 40)(rng);
    const Dataset& data = build == BatchBuild::split ? larger : smaller;
    LoaderConfig c = config_for(batch, workers, rng() % 2 == 0, rng() % 2 == 0, rng() % 2 == 0, build);
    c.prefetch_per_worker = std::uniform_int_distribution<int>(1, 3)(rng);
    SCOPED_TRACE(testing::Message() << "round " << round << " workers " << workers << " batch " << batch << " "
                                    << to_string(build));
    Loader loader(data, c);
    for (std::size_t epoch = 0; epoch < 4; ++epoch) {
      const bool stop_early = rng() % 3 == 0;
      const std::size_t stop_after =
          stop_early ? std::uniform_int_distribution<std::size_t>(0, loader.batches_per_epoch())(rng) : SIZE_MAX;
      const Delivered d = run_epoch(loader, epoch, stop_after);
      if (!stop_early) {
        std::vector<std::uint32_t> got = d.ids;
        std::vector<std::uint32_t> expected = delivered_ids(data.size(), batch, c.shuffle, c.drop_last, 7, epoch);
        std::sort(got.begin(), got.end());
        std::sort(expected.begin(), expected.end());
        ASSERT_EQ(got, expected);
      }
    }
    if (rng() % 2 == 0) {  // sometimes mid-epoch, with batches still being built
      loader.start_epoch(99);
      if (auto b = loader.next()) loader.release();
    }
  }
  EXPECT_EQ(live_loader_slot_bytes(), 0u);
}

TEST(LoaderStats, CountWhatWasDelivered) {
  const Dataset& data = small_dataset();
  LoaderConfig c = config_for(50, 2);
  c.transform.cost_us = 2.0;
  Loader loader(data, c);
  run_epoch(loader, 0);
  const LoaderStats s = loader.stats();
  EXPECT_EQ(s.batches, loader.batches_per_epoch());
  EXPECT_EQ(s.samples, data.size());
  // Each sample burnt at least 2 µs of CPU in its builder.
  EXPECT_GE(s.build_cpu_seconds, 2e-6 * static_cast<double>(data.size()));
  EXPECT_GE(s.build_seconds + 1e-3, s.build_cpu_seconds);  // a thread's CPU time never exceeds its wall time
  EXPECT_EQ(s.pin_seconds, 0.0);
  EXPECT_EQ(s.epochs, 1u);  // one epoch's first batch, timed from start_epoch()
  EXPECT_GT(s.first_batch_seconds, 0.0);
  loader.reset_stats();
  EXPECT_EQ(loader.stats().samples, 0u);
}

// The time builders wait in fences (the copy that last read a slot) is counted: here
// each fence sleeps 1 ms, so the count is at least a millisecond a fence that ran.
TEST(LoaderStats, FenceWaitsAreCounted) {
  const Dataset& data = small_dataset();
  for (BatchBuild build : all_batch_builds()) {
    for (int workers : {0, 2}) {
      SCOPED_TRACE(testing::Message() << to_string(build) << " workers " << workers);
      Loader loader(data, config_for(128, workers, true, false, true, build));
      std::atomic<int> ran{0};
      for (std::size_t epoch = 0; epoch < 2; ++epoch) {
        loader.start_epoch(epoch);
        while (const auto batch = loader.next()) {
          loader.release([&ran] {
            std::this_thread::sleep_for(std::chrono::milliseconds(1));
            ++ran;
          });
        }
      }
      loader.stop();  // every fence that will run has run
      EXPECT_GT(ran.load(), 0);
      EXPECT_GE(loader.stats().fence_seconds, 1e-3 * ran.load());
      EXPECT_EQ(loader.stats().epochs, 2u);
    }
  }
}

// Runs `epochs` epochs with a consumer slow enough that the workers fill the ring and
// sleep; returns the batches delivered.
std::size_t consume_slowly(Loader& loader, std::size_t epochs) {
  std::size_t batches = 0;
  for (std::size_t epoch = 0; epoch < epochs; ++epoch) {
    loader.start_epoch(epoch);
    while (const std::optional<Batch> batch = loader.next()) {
      std::this_thread::sleep_for(std::chrono::microseconds(200));
      loader.release();
      ++batches;
    }
  }
  return batches;
}

// A freed slot wakes one worker, not every idle one. The consumer is slow here, so the
// workers have filled the ring and sleep when each slot comes back: waking them all
// (as the loader once did) makes about `workers` wake-ups per batch, 7 of them for
// nothing, and on a host with fewer cores than workers the herd costs the consumer its
// lock and its core. Each wake-up has a notify behind it: one per released slot, plus
// every worker once per epoch start and once at the stop.
TEST(LoaderStats, AFreedSlotWakesOneWorkerNotAll) {
  constexpr int kWorkers = 8;
  constexpr std::size_t kEpochs = 2;
  Loader loader(small_dataset(), config_for(16, kWorkers));
  const std::size_t batches = consume_slowly(loader, kEpochs);
  const LoaderStats s = loader.stats();
  EXPECT_EQ(s.batches, batches);
  EXPECT_LE(s.idle_wakeups, s.worker_wakeups);
  EXPECT_LE(s.worker_wakeups, batches + (kEpochs + 1) * kWorkers) << s.idle_wakeups << " of them idle";
}

// Split builds wake only whom the parts need: a freed slot wakes one worker, who opens
// the batch and wakes one more for each of its other parts.
TEST(LoaderStats, ASplitBatchWakesOneWorkerAPart) {
  constexpr int kWorkers = 8;
  constexpr std::size_t kEpochs = 2;
  Loader loader(small_dataset(), config_for(128, kWorkers, true, false, true, BatchBuild::split));
  const std::size_t batches = consume_slowly(loader, kEpochs);
  const LoaderStats s = loader.stats();
  const std::size_t parts = parts_per_batch(BatchBuild::split, kWorkers, 128);  // 2
  EXPECT_EQ(parts, 2u);
  EXPECT_LE(s.worker_wakeups, batches * parts + (kEpochs + 1) * kWorkers) << s.idle_wakeups << " of them idle";
}

}  // namespace
}  // namespace hdbench
