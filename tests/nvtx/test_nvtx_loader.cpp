// The loader's NVTX conventions: worker threads named "loader/worker N" (and the sampler
// thread "loader/sampler"), a collate range per batch on the thread that built it, with
// the batch's bytes. On a GPU also
// the pin thread ("loader/pin") with a pin range per batch, the named copy stream and
// a copy range per batch.
#include <gtest/gtest.h>

#include <map>
#include <set>

#include "capture_log.hpp"
#include "core/system.hpp"
#include "pipeline/device_feed.hpp"
#include "pipeline/loader.hpp"
#include "pipeline/loader_nvtx.hpp"

namespace {

namespace nvtx = hdbench::nvtx;
using namespace hdbench::nvtx_capture;

const hdbench::Dataset& dataset() {
  static const hdbench::Dataset d = hdbench::make_synthetic_mnist(40, 1);
  return d;
}

hdbench::LoaderConfig config(int workers, hdbench::PinMode mode, const std::string& prefix) {
  hdbench::LoaderConfig c;
  c.batch_size = 10;
  c.workers = workers;
  c.pin_mode = mode;
  c.nvtx_prefix = prefix;
  return c;
}

// Thread names by tid, and per range name the tids that pushed it with its bytes.
struct Seen {
  std::map<std::string, std::string> thread_names;
  std::map<std::string, std::vector<std::pair<std::string, std::string>>> ranges;  // name -> (tid, bytes)
  std::vector<std::string> streams;
};

Seen seen(const std::vector<Fields>& lines) {
  Seen s;
  for (const Fields& f : lines) {
    if (f.size() == 3 && f[0] == "thread") s.thread_names[f[1]] = f[2];
    if (f.size() == 2 && f[0] == "stream") s.streams.push_back(f[1]);
    if (f.size() == 7 && f[0] == "push" && f[3] == category_id(hdbench::kLoaderNvtx)) {
      s.ranges[f[6]].emplace_back(f[2], f[5]);
    }
  }
  return s;
}

const std::string kBatchBytes = std::to_string(hdbench::BatchLayout{784}.batch_bytes(10));

TEST_F(NvtxRanges, LoaderWorkersAreNamedAndRangeEveryCollate) {
  {
    hdbench::Loader loader(dataset(), config(2, hdbench::PinMode::pageable, "loader/nvtx-test"));
    loader.start_epoch(0);
    while (loader.next()) loader.release();
  }
  const Seen s = seen(since_start());
  std::set<std::string> thread_names;
  for (const auto& [tid, name] : s.thread_names) thread_names.insert(name);
  // The workers, and the sampler thread that shuffles the next epoch's order.
  EXPECT_EQ(thread_names, (std::set<std::string>{"loader/sampler", "loader/worker 0", "loader/worker 1"}));
  for (int batch = 0; batch < 4; ++batch) {
    const std::string name = "loader/nvtx-test/batch " + std::to_string(batch) + "/collate";
    ASSERT_EQ(s.ranges.count(name), 1u) << name;
    ASSERT_EQ(s.ranges.at(name).size(), 1u) << name;
    const auto& [tid, bytes] = s.ranges.at(name).front();
    EXPECT_EQ(bytes, kBatchBytes);
    ASSERT_TRUE(s.thread_names.contains(tid)) << "collate range on an unnamed thread";
    EXPECT_TRUE(s.thread_names.at(tid).starts_with("loader/worker ")) << s.thread_names.at(tid);
  }
}

TEST_F(NvtxRanges, LoaderPinThreadAndCopyStreamOnAGpu) {
  static const hdbench::system::SystemInfo machine = hdbench::system::discover();
  if (!machine.gpu_usable()) GTEST_SKIP() << machine.gpu_unavailable_reason;
  HDBENCH_CUDA_CHECK(cudaSetDevice(0));
  {
    hdbench::Loader loader(dataset(), config(1, hdbench::PinMode::pin_thread, "loader/nvtx-gpu"));
    hdbench::Stream consumer("loader/nvtx-consumer");
    hdbench::DeviceFeed feed(hdbench::BatchLayout{784}.batch_bytes(10), loader.slot_count(), "loader/nvtx-gpu");
    loader.start_epoch(0);
    while (const auto batch = loader.next()) feed.consumed(feed.push(loader, *batch, consumer.get()), consumer.get());
    consumer.synchronize();
  }
  const Seen s = seen(since_start());
  EXPECT_NE(std::find(s.streams.begin(), s.streams.end(), "loader/nvtx-gpu/copy"), s.streams.end());
  for (int batch = 0; batch < 4; ++batch) {
    const std::string prefix = "loader/nvtx-gpu/batch " + std::to_string(batch);
    ASSERT_EQ(s.ranges.count(prefix + "/pin"), 1u) << prefix;
    const auto& [pin_tid, pin_bytes] = s.ranges.at(prefix + "/pin").front();
    EXPECT_EQ(pin_bytes, kBatchBytes);
    EXPECT_EQ(s.thread_names.at(pin_tid), "loader/pin");
    ASSERT_EQ(s.ranges.count(prefix + "/copy"), 1u) << prefix;
    EXPECT_EQ(s.ranges.at(prefix + "/copy").front(), std::make_pair(tid_string(), kBatchBytes));
  }
}

}  // namespace
