// The scale-out figures (nccl-tests' bus bandwidth, scaling efficiency), sharding,
// the parameter check, the launcher detection, and the data-parallel step with ranks
// as threads: N ranks on shards equal one process on the combined batch.
#include <gtest/gtest.h>

#include <array>
#include <barrier>
#include <cstring>
#include <map>
#include <mutex>
#include <thread>

#include "dataparallel/communicator.hpp"
#include "dataparallel/cpu_step.hpp"
#include "dataparallel/dataparallel_math.hpp"
#include "dataparallel/gpu_step.hpp"
#include "mlp/mlp_model.hpp"

namespace hdbench::dataparallel {
namespace {

TEST(BusBandwidth, FollowsNcclTests) {
  // 1 GB in 0.1 s: algbw 10 GB/s; busbw = algbw * 2(n-1)/n.
  EXPECT_DOUBLE_EQ(allreduce_algbw_gbps(1'000'000'000, 0.1), 10.0);
  EXPECT_DOUBLE_EQ(allreduce_busbw_gbps(1'000'000'000, 0.1, 2), 10.0);
  EXPECT_DOUBLE_EQ(allreduce_busbw_gbps(1'000'000'000, 0.1, 8), 17.5);
  EXPECT_DOUBLE_EQ(allreduce_busbw_gbps(1'000'000'000, 0.1, 1), 0.0);
  EXPECT_DOUBLE_EQ(allreduce_algbw_gbps(100, 0.0), 0.0);
}

TEST(BusBandwidth, OneRankPublishesNoBandwidth) {
  // Issue 28: one rank's all-reduce crosses no link (NCCL runs nothing for an in-place
  // sum), so bytes / time was published as 155,000-174,000 GB/s on an H100.
  EXPECT_FALSE(allreduce_bandwidth(80'000'000, 0.5e-6, 1).has_value());
  EXPECT_FALSE(allreduce_bandwidth(80'000'000, 0.0, 2).has_value());
  const auto two = allreduce_bandwidth(1'000'000'000, 0.1, 2);
  ASSERT_TRUE(two.has_value());
  EXPECT_DOUBLE_EQ(two->algbw_gbps, 10.0);
  EXPECT_DOUBLE_EQ(two->busbw_gbps, 10.0);
  EXPECT_DOUBLE_EQ(allreduce_bandwidth(1'000'000'000, 0.1, 8)->busbw_gbps, 17.5);
}

TEST(ScalingEfficiency, IsOneRankTimeOverRanksTimesTheirTime) {
  EXPECT_DOUBLE_EQ(scaling_efficiency(8.0, 2.0, 4), 1.0);
  EXPECT_DOUBLE_EQ(scaling_efficiency(8.0, 4.0, 4), 0.5);
  EXPECT_DOUBLE_EQ(scaling_efficiency(8.0, 0.0, 4), 0.0);
}

TEST(Shards, SplitEvenlyOrSayWhy) {
  EXPECT_EQ(shard_of(64, 1, 2).begin, 32u);
  EXPECT_EQ(shard_of(64, 1, 2).end, 64u);
  EXPECT_EQ(shard_of(64, 3, 4).size(), 16u);
  EXPECT_THROW(shard_of(63, 0, 2), std::invalid_argument);
  EXPECT_THROW(shard_of(1, 0, 2), std::invalid_argument);
  EXPECT_THROW(shard_of(64, 2, 2), std::invalid_argument);
}

TEST(Compare, UsesAbsPlusRelTolerance) {
  const std::vector<float> a = {1.0f, 2.0f}, b = {1.0f, 2.002f};
  EXPECT_TRUE(compare(a, b, 0.0, 1e-3).within());
  EXPECT_FALSE(compare(a, b, 0.0, 1e-4).within());
  EXPECT_NEAR(compare(a, b, 0.0, 0.0).max_abs_difference, 0.002, 1e-6);
  const std::vector<float> nan = {1.0f, std::nanf("")};
  EXPECT_FALSE(compare(nan, b, 1.0, 1.0).within());
}

// Buckets as (lowest layer, begin, end), in the order the backward pass fills them.
std::vector<std::array<std::size_t, 3>> buckets_of(std::vector<std::size_t> layer_begin, std::size_t total,
                                                   std::size_t cap) {
  std::vector<std::array<std::size_t, 3>> out;
  for (const GradientBucket& b : bucket_gradients(layer_begin, total, cap))
    out.push_back({b.lowest_layer, b.begin, b.end});
  return out;
}

TEST(GradientBuckets, FillFromTheLastLayerAndCloseOnceTheyHoldTheCap) {
  using B = std::vector<std::array<std::size_t, 3>>;
  // Layers of 100, 50 and 10 floats.
  EXPECT_EQ(buckets_of({0, 100, 150}, 160, 40), (B{{1, 100, 160}, {0, 0, 100}}));
  EXPECT_EQ(buckets_of({0, 100, 150}, 160, 1), (B{{2, 150, 160}, {1, 100, 150}, {0, 0, 100}}));
  EXPECT_EQ(buckets_of({0, 100, 150}, 160, 1'000'000), (B{{0, 0, 160}}));  // DDP's cap above the model: one bucket
  EXPECT_EQ(buckets_of({0}, 7, 1), (B{{0, 0, 7}}));
  // Exactly the cap closes the bucket.
  EXPECT_EQ(buckets_of({0, 100, 150}, 160, 10), (B{{2, 150, 160}, {1, 100, 150}, {0, 0, 100}}));
}

TEST(Launcher, IsReadFromTheEnvironment) {
  static std::map<std::string, std::string> env;
  const auto get = [](const char* name) -> const char* {
    const auto it = env.find(name);
    return it == env.end() ? nullptr : it->second.c_str();
  };
  env = {};
  EXPECT_EQ(detect_launcher(get), "");
  env = {{"OMPI_COMM_WORLD_SIZE", "2"}};
  EXPECT_EQ(detect_launcher(get), "openmpi");
  env = {{"SLURM_STEP_ID", "0"}, {"SLURM_NTASKS", "4"}};
  EXPECT_EQ(detect_launcher(get), "slurm");
  env = {{"SLURM_NTASKS", "4"}};  // inside an allocation, but not an srun step
  EXPECT_EQ(detect_launcher(get), "");
}

// Ranks as threads of one process, collectives through shared memory.
class ThreadRanks {
 public:
  explicit ThreadRanks(int n)
      : n_(n), barrier_(n), slots_(static_cast<std::size_t>(n)), texts_(static_cast<std::size_t>(n)) {}
  class Rank final : public Communicator {
   public:
    Rank(ThreadRanks& all, int rank) : all_(all), rank_(rank) {}
    int rank() const noexcept override { return rank_; }
    int size() const noexcept override { return all_.n_; }
    void allreduce_sum(std::span<float> v, std::string_view) override {
      all_.slots_[rank_].assign(v.begin(), v.end());
      all_.barrier_.arrive_and_wait();
      std::vector<float> sum(v.size(), 0.0f);
      for (const auto& s : all_.slots_) {
        for (std::size_t i = 0; i < v.size(); ++i) sum[i] += s[i];
      }
      all_.barrier_.arrive_and_wait();
      std::copy(sum.begin(), sum.end(), v.begin());
    }
    void allreduce_max(std::span<double>, std::string_view) override {}
    void broadcast(std::span<std::byte> bytes, std::string_view) override {
      if (rank_ == 0) all_.bytes_.assign(bytes.begin(), bytes.end());
      all_.barrier_.arrive_and_wait();
      std::memcpy(bytes.data(), all_.bytes_.data(), bytes.size());
      all_.barrier_.arrive_and_wait();
    }
    std::vector<std::string> gather_to_root(const std::string& text, std::string_view) override {
      all_.texts_[static_cast<std::size_t>(rank_)] = text;  // one slot per rank: no shared insertion
      all_.barrier_.arrive_and_wait();
      std::vector<std::string> out;
      if (rank_ == 0) {
        out = all_.texts_;
      }
      all_.barrier_.arrive_and_wait();
      return out;
    }
    std::string describe() const override { return "threads"; }

   private:
    ThreadRanks& all_;
    int rank_;
  };

  int n_;
  std::barrier<> barrier_;
  std::vector<std::vector<float>> slots_;
  std::vector<std::byte> bytes_;
  std::vector<std::string> texts_;  // sized up front: ranks write their own slot at once
};

nlohmann::json run_with_threads(int n, const DataParallelCase& c) {
  ThreadRanks all(n);
  std::vector<nlohmann::json> results(static_cast<std::size_t>(n));
  std::vector<std::thread> threads;
  for (int r = 0; r < n; ++r) {
    threads.emplace_back([&, r] {
      ThreadRanks::Rank rank(all, r);
      results[static_cast<std::size_t>(r)] = run_data_parallel(rank, c);
    });
  }
  for (auto& t : threads) t.join();
  for (int r = 1; r < n; ++r) EXPECT_TRUE(results[static_cast<std::size_t>(r)].is_null());
  return results[0];
}

TEST(DataParallelStep, RanksOnShardsMatchOneProcessOnTheCombinedBatch) {
  const DataParallelCase c{MlpShape{{784, 16, 10}}, 48, 3, 1, 5, 1e-4};
  for (const int n : {1, 2, 4}) {
    const nlohmann::json r = run_with_threads(n, c);
    EXPECT_FALSE(r.contains("error_message")) << r.value("error_message", "");
    EXPECT_TRUE(r["checks"]["ranks_identical"].get<bool>()) << n;
    EXPECT_TRUE(r["checks"]["matches_one_rank"].get<bool>()) << n;
    EXPECT_EQ(r["per_rank"].size(), static_cast<std::size_t>(n));
    EXPECT_EQ(r["per_rank"][0]["shard_batch"].get<std::size_t>(), 48u / n);
    EXPECT_LE(r["counters"]["params_max_abs_diff_vs_one_rank"].get<double>(), 1e-4);
  }
}

TEST(DataParallelStep, OneRankTakesAnyBatchTwoRanksNeedAnEvenSplit) {
  SelfCommunicator self;
  EXPECT_NO_THROW(run_data_parallel(self, {MlpShape{{8, 4, 3}}, 5, 1, 1, 1, 1e-4}));
  ThreadRanks all(2);
  ThreadRanks::Rank second(all, 1);  // throws before its first collective
  EXPECT_THROW(run_data_parallel(second, {MlpShape{{8, 4, 3}}, 5, 1, 1, 1, 1e-4}), std::invalid_argument);
}

TEST(DataParallelStep, TheCombinedBatchIsTheSameWhoeverBuildsIt) {
  const MlpShape m{{8, 4, 3}};
  std::vector<float> whole(8 * 6), half(8 * 3);
  std::vector<std::int32_t> whole_labels(6), half_labels(3);
  fill_batch(m, 9, 2, 0, 6, whole.data(), whole_labels.data());
  fill_batch(m, 9, 2, 3, 3, half.data(), half_labels.data());
  EXPECT_TRUE(std::equal(half.begin(), half.end(), whole.begin() + 24));
  EXPECT_TRUE(std::equal(half_labels.begin(), half_labels.end(), whole_labels.begin() + 3));
  for (const auto l : whole_labels) EXPECT_TRUE(l >= 0 && l < 3);
}

// Refused by its first line, before any CUDA or NCCL call: runs without a GPU.
TEST(GpuDataParallelStep, ABatchThatDoesNotSplitIsRefusedBeforeAnyGpuWork) {
  GpuDataParallelCase c{{parse_mlp_shape("784x64x32x10"), 0, 3, 1, 0x5eedULL, 1e-4}, true, 4096, 60.0};
  SelfCommunicator self;
  try {
    run_gpu_data_parallel(self, c);
    ADD_FAILURE() << "a global batch of 0 was taken";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("does not split evenly over 1 ranks"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace hdbench::dataparallel
