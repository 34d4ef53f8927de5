#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <mutex>
#include <set>
#include <thread>
#include <vector>

#include "core/thread_team.hpp"

namespace hdbench {
namespace {

TEST(ThreadTeam, EveryPartRunsExactlyOnceWhateverThePartCount) {
  for (const int threads : {1, 2, 3}) {
    ThreadTeam team(threads, "test");
    for (const int parts : {0, 1, 2, 3, 7, 64}) {
      for (int round = 0; round < 50; ++round) {  // runs back to back: no part of one leaks into the next
        std::vector<std::atomic<int>> runs(static_cast<std::size_t>(parts));
        team.run(parts, [&](int p) { runs[static_cast<std::size_t>(p)].fetch_add(1); });
        for (int p = 0; p < parts; ++p)
          ASSERT_EQ(runs[static_cast<std::size_t>(p)].load(), 1) << threads << " " << parts;
      }
    }
  }
}

TEST(ThreadTeam, OnePartPerThreadByDefault) {
  ThreadTeam team(3, "test");
  std::atomic<int> sum{0};
  team.run([&](int p) { sum += 1 << p; });
  EXPECT_EQ(sum.load(), 0b111);
}

// A thread stalled in its part (as one whose core the host took away) holds up only
// that part: the others take every other part, and the run ends when the stalled part
// does. Part 0 waits until all the other parts are done, so a team that needed the
// stalled thread for them would never finish (the wait gives up after 60 s and fails).
TEST(ThreadTeam, AStalledThreadHoldsUpOnlyThePartItTook) {
  constexpr int kParts = 40;
  ThreadTeam team(3, "test");
  std::atomic<int> others_done{0};
  std::atomic<bool> gave_up{false};
  std::mutex mutex;
  std::set<std::thread::id> stalled_thread;
  std::vector<std::thread::id> ran_by(kParts);
  team.run(kParts, [&](int p) {
    ran_by[static_cast<std::size_t>(p)] = std::this_thread::get_id();
    if (p != 0) {
      others_done.fetch_add(1);
      return;
    }
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
    while (others_done.load() < kParts - 1) {
      if (std::chrono::steady_clock::now() > deadline) {
        gave_up = true;
        return;
      }
      std::this_thread::sleep_for(std::chrono::microseconds(100));
    }
  });
  EXPECT_FALSE(gave_up.load()) << "the other parts waited for the stalled thread";
  EXPECT_EQ(others_done.load(), kParts - 1);
  for (int p = 1; p < kParts; ++p) EXPECT_NE(ran_by[static_cast<std::size_t>(p)], ran_by[0]) << "part " << p;
}

TEST(ThreadTeam, NeedsAThread) { EXPECT_THROW(ThreadTeam(0, "test"), std::invalid_argument); }

}  // namespace
}  // namespace hdbench
