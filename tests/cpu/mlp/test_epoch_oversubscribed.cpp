// Issue 39: the CPU MLP epoch beside loader workers with more busy threads than CPUs
// (the H200's 16-vCPU host ran 15 team threads + 2 loader workers + the consumer, and
// one epoch ran for minutes). Here the same shape runs on a thread limited to one CPU,
// so every thread it starts is oversubscribed; the work runs under a watchdog, so a hang
// fails the test instead of hanging CI. No timing is asserted beyond the generous limit.
#include <gtest/gtest.h>
#include <sched.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <future>
#include <memory>
#include <string>
#include <thread>

#include "core/thread_team.hpp"
#include "mlp/cpu_threads.hpp"
#include "mlp/mlp_cpu.hpp"
#include "mlp/mlp_model.hpp"
#include "pipeline/batch_plan.hpp"
#include "pipeline/dataset.hpp"
#include "pipeline/loader.hpp"

namespace hdbench {
namespace {

constexpr auto kWatchdog = std::chrono::seconds(180);

// Runs `work` on a thread whose affinity is `cpus` of the CPUs this process may use
// (every thread it starts inherits it). A watchdog waits `kWatchdog`; past it the test
// fails and the process exits, since a hung thread can be neither joined nor killed.
template <typename Work>
void run_on_cpus_with_watchdog(int cpus, const char* what, Work work) {
  auto done = std::make_shared<std::promise<std::string>>();
  std::future<std::string> result = done->get_future();
  std::thread worker([done, cpus, work] {
    cpu_set_t allowed;
    CPU_ZERO(&allowed);
    sched_getaffinity(0, sizeof allowed, &allowed);
    cpu_set_t set;
    CPU_ZERO(&set);
    for (int c = 0, taken = 0; c < CPU_SETSIZE && taken < cpus; ++c) {
      if (CPU_ISSET(c, &allowed)) {
        CPU_SET(c, &set);
        ++taken;
      }
    }
    sched_setaffinity(0, sizeof set, &set);
    try {
      work();
      done->set_value("");
    } catch (const std::exception& error) {
      done->set_value(error.what());
    }
  });
  if (result.wait_for(kWatchdog) != std::future_status::ready) {
    ADD_FAILURE() << what << " did not finish within " << kWatchdog.count() << " s on " << cpus << " CPU(s)";
    std::fprintf(stderr, "FAILED: %s hung (watchdog after %lld s); exiting instead of hanging\n", what,
                 static_cast<long long>(kWatchdog.count()));
    std::fflush(stderr);
    std::_Exit(1);
  }
  worker.join();  // not left running into the next test, whose thread counts it would upset
  EXPECT_EQ(result.get(), "") << what;
}

TEST(EpochOversubscribed, AnEpochWithMoreThreadsThanCpusCompletes) {
  // The H200's case: 784x32x10, batch 1024, 2 loader workers, a team of 15, here on 1 CPU.
  run_on_cpus_with_watchdog(1, "epoch of 15 team threads + 2 loader workers", [] {
    const Dataset data = make_synthetic_mnist(4096, 7);
    const MlpShape shape = parse_mlp_shape("784x32x10");
    LoaderConfig config;
    config.batch_size = 1024;
    config.workers = 2;
    config.seed = 3;
    Loader loader(data, config);
    CpuMlp mlp(shape, default_optimizer(OptimizerKind::sgd), config.batch_size, 15, initial_parameters(shape, 1));
    const BatchLayout layout{data.pixels_per_sample()};
    std::size_t steps = 0;
    for (std::size_t epoch = 0; epoch < 3; ++epoch) {
      loader.start_epoch(epoch);
      while (const std::optional<Batch> batch = loader.next()) {
        mlp.step(static_cast<const float*>(batch->data), layout.labels(batch->data, batch->samples), batch->samples);
        loader.release();
        ++steps;
      }
    }
    if (steps != 3 * loader.batches_per_epoch()) throw std::runtime_error("steps were lost");
  });
}

TEST(EpochOversubscribed, ATeamLargerThanItsCpusDoesNotSpin) {
  run_on_cpus_with_watchdog(1, "team of 15 on 1 CPU", [] {
    ThreadTeam team(15, "test");
    if (team.spins()) throw std::runtime_error("a team of 15 on 1 CPU spins");
    std::atomic<int> parts{0};
    for (int run = 0; run < 2000; ++run) team.run(30, [&](int) { parts.fetch_add(1); });
    if (parts.load() != 2000 * 30) throw std::runtime_error("parts were lost");
  });
  EXPECT_EQ(ThreadTeam(1, "one").spins(), true);
}

TEST(EpochOversubscribed, TheStepLeavesTheLoaderWorkersTheirCores) {
  EXPECT_EQ(epoch_step_threads(15, 16, 2), 14);  // the H200's case
  EXPECT_EQ(epoch_step_threads(8, 16, 2), 8);
  EXPECT_EQ(epoch_step_threads(15, 16, 0), 15);
  EXPECT_EQ(epoch_step_threads(15, 16, 16), 1);
  EXPECT_EQ(epoch_step_threads(3, 2, 8), 1);
}

}  // namespace
}  // namespace hdbench
