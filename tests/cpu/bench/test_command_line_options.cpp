#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "option_test_support.hpp"
#include "parsed_flags.hpp"
#include "run_start.hpp"

namespace hdbench {
namespace {

using namespace hdbench::testing;  // NOLINT: the harness and helpers of every option test
using testing::kFamilyNames;
using testing::parse_flags;
using testing::Parsed;

constexpr std::uint64_t kSeed = 0x12'3456'789a'bcdeULL;

OptionLimits test_limits() {
  OptionLimits limits;
  limits.host_memory_bytes = 0;
  limits.hardware_threads = 8;
  return limits;
}

Parsed parse(const std::vector<std::string>& args, const OptionLimits& limits = test_limits(),
             std::uint64_t seed = kSeed) {
  return parse_flags(args, limits, seed);
}

std::string parse_error(const std::vector<std::string>& args, const OptionLimits& limits = test_limits()) {
  return usage_error_of([&] { parse(args, limits); });
}

// The whole command line as hdbench declares it (every owner's flags).

// --- parse_command_line: defaults and passthrough -------------------------------

// The declared defaults are the full preset's; the default and quick presets replace
// some of them (test_presets.cpp).
const std::vector<std::string> kFull = {"--hdbench_preset=full"};

TEST(ParseCommandLine, Defaults) {
  const Parsed line = parse(kFull);
  const Parsed& o = line;
  EXPECT_FALSE(o.help);
  EXPECT_TRUE(o.core.out_path.empty());
  EXPECT_EQ(o.core.families, kFamilyNames);
  for (const std::string& family : kFamilyNames) EXPECT_TRUE(o.core.runs_family(family)) << family;
  EXPECT_EQ(o.transfer.sizes, parse_size_list("sizes", "4K:1G:x4"));
  EXPECT_EQ(o.transfer.sizes.size(), 10u);
  EXPECT_EQ(o.transfer.directions, all_directions());
  EXPECT_EQ(o.core.memory_kinds, all_host_memory_kinds());
  EXPECT_EQ(o.transfer.engines, all_engines());
  EXPECT_EQ(o.transfer.staged_chunk_sizes, (std::vector<std::size_t>{kMiB, 4 * kMiB, 16 * kMiB}));
  EXPECT_EQ(o.transfer.staged_threads, (std::vector<int>{1, 2, 4, 8}));  // like memcpy_threads: up to the cores
  EXPECT_EQ(o.transfer.staged_slots, 4);
  EXPECT_EQ(o.transfer.memcpy_threads, (std::vector<int>{1, 2, 4, 8}));
  EXPECT_EQ(o.core.device, 0);
  EXPECT_EQ(o.core.seed, kSeed);
  EXPECT_DOUBLE_EQ(o.core.spin_timeout_ms, 5000.0);
  EXPECT_EQ(o.streams.stream_sizes, (std::vector<std::size_t>{256 * kMiB}));
  EXPECT_EQ(o.streams.stream_counts, (std::vector<int>{1, 2, 4, 8}));
  EXPECT_EQ(o.streams.chunk_counts, (std::vector<int>{4, 16, 64}));
  EXPECT_EQ(o.streams.issue_orders, all_issue_orders());
  EXPECT_EQ(o.streams.compute_ratios, (std::vector<double>{0.5, 1.0, 2.0}));
  EXPECT_EQ(o.data.loader_samples, 60000u);
  EXPECT_TRUE(o.data.mnist_dir.empty());
  EXPECT_EQ(o.loader.batches, (std::vector<int>{32, 64, 128, 256, 512, 1024, 2048, 4096}));
  EXPECT_EQ(o.loader.workers, (std::vector<int>{0, 1, 2, 4, 8, 16}));
  EXPECT_EQ(o.loader.depths, (std::vector<int>{2}));
  EXPECT_EQ(o.loader.costs_us, (std::vector<double>{0.0, 20.0}));
  EXPECT_EQ(o.loader.shuffle, (std::vector<bool>{true}));
  EXPECT_EQ(o.loader.pinning, all_pin_modes());
  EXPECT_EQ(o.loader.augments, (std::vector<Augment>{Augment::none}));
  EXPECT_EQ(o.loader.consumers, all_loader_consumers());
  EXPECT_EQ(o.given, kFull);
  EXPECT_TRUE(line.passthrough.empty());
}

TEST(ParseCommandLine, DefaultMemcpyThreadsEndAtTheCoreCount) {
  OptionLimits limits = test_limits();
  limits.hardware_threads = 6;
  EXPECT_EQ(parse(kFull, limits).transfer.memcpy_threads, (std::vector<int>{1, 2, 4, 6}));
  limits.hardware_threads = 1;
  EXPECT_EQ(parse(kFull, limits).transfer.memcpy_threads, (std::vector<int>{1}));
  limits.hardware_threads = 0;  // unknown
  EXPECT_EQ(parse(kFull, limits).transfer.memcpy_threads, (std::vector<int>{1}));
}

TEST(ParseCommandLine, LoaderFlags) {
  const Parsed o =
      parse({"--hdbench_loader_batches=1,65536", "--hdbench_loader_workers=0,3", "--hdbench_loader_depths=1,64",
             "--hdbench_loader_costs_us=0,2.5", "--hdbench_loader_shuffle=off,on,false",
             "--hdbench_loader_pinning=direct", "--hdbench_loader_augment=crop_flip,none",
             "--hdbench_loader_consumers=gpu", "--hdbench_loader_samples=123", "--hdbench_mnist_dir=/data/mnist"});
  EXPECT_EQ(o.loader.batches, (std::vector<int>{1, 65536}));
  EXPECT_EQ(o.loader.workers, (std::vector<int>{0, 3}));
  EXPECT_EQ(o.loader.depths, (std::vector<int>{1, 64}));
  EXPECT_EQ(o.loader.costs_us, (std::vector<double>{0.0, 2.5}));
  EXPECT_EQ(o.loader.shuffle, (std::vector<bool>{false, true}));
  EXPECT_EQ(o.loader.pinning, (std::vector<PinMode>{PinMode::direct}));
  EXPECT_EQ(o.loader.augments, (std::vector<Augment>{Augment::crop_flip, Augment::none}));
  EXPECT_EQ(o.loader.consumers, (std::vector<LoaderConsumer>{LoaderConsumer::gpu}));
  EXPECT_EQ(o.data.loader_samples, 123u);
  EXPECT_EQ(o.data.mnist_dir, "/data/mnist");
  for (const char* bad : {"--hdbench_loader_batches=0", "--hdbench_loader_workers=-1", "--hdbench_loader_depths=65",
                          "--hdbench_loader_costs_us=100001", "--hdbench_loader_shuffle=yes",
                          "--hdbench_loader_pinning=", "--hdbench_loader_samples=10000001", "--hdbench_mnist_dir="}) {
    EXPECT_THROW(parse({bad}), UsageError) << bad;
  }
}

TEST(ParseCommandLine, MlpDefaults) {
  const Parsed o = parse(kFull);
  ASSERT_EQ(o.mlp.models.size(), 3u);
  EXPECT_EQ(to_string(o.mlp.models[0]), "784x32x10");
  EXPECT_EQ(to_string(o.mlp.models[2]), "784x4096x4096x4096x10");
  EXPECT_EQ(o.mlp.batches, (std::vector<int>{32, 128, 1024, 8192, 16384}));
  EXPECT_EQ(o.mlp.processors, all_processors());
  EXPECT_EQ(o.mlp.dtypes, (std::vector<MlpDtype>{MlpDtype::fp32, MlpDtype::tf32, MlpDtype::bf16}));
  EXPECT_EQ(o.mlp.optimizers, (std::vector<OptimizerKind>{OptimizerKind::sgd}));
  EXPECT_EQ(o.mlp.modes, (std::vector<StepMode>{StepMode::eager, StepMode::graph, StepMode::fused, StepMode::overlap}));
  EXPECT_EQ(o.mlp.data, all_batch_sources());
  EXPECT_TRUE(o.mlp.threads.empty());  // auto: the step sweeps 1, 2, 4, ... cores
  EXPECT_EQ(o.mlp.cores, test_limits().hardware_threads);
  EXPECT_EQ(o.mlp.epoch_workers, (std::vector<int>{0, 2, 8}));
  EXPECT_TRUE(o.core.runs_family("mlp"));
}

TEST(ParseCommandLine, MlpFlags) {
  const Parsed o =
      parse({"--hdbench_mlp_models=784x64x10,5x3", "--hdbench_mlp_batches=1,1048576", "--hdbench_mlp_processors=gpu",
             "--hdbench_mlp_dtypes=bf16,fp32", "--hdbench_mlp_optimizers=adam,sgd", "--hdbench_mlp_modes=fused,graph",
             "--hdbench_mlp_data=pinned", "--hdbench_mlp_threads=1,3", "--hdbench_mlp_cpu_step_tflop_limit=0.5",
             "--hdbench_mlp_sample_ms=8", "--hdbench_mlp_epoch_models=784x16x10", "--hdbench_mlp_epoch_batches=64",
             "--hdbench_mlp_epoch_workers=0,4", "--hdbench_mlp_epoch_pinning=direct"});
  ASSERT_EQ(o.mlp.models.size(), 2u);
  EXPECT_EQ(o.mlp.models[1].widths, (std::vector<int>{5, 3}));
  EXPECT_EQ(o.mlp.batches, (std::vector<int>{1, 1 << 20}));
  EXPECT_EQ(o.mlp.processors, (std::vector<Processor>{Processor::gpu}));
  EXPECT_EQ(o.mlp.dtypes, (std::vector<MlpDtype>{MlpDtype::bf16, MlpDtype::fp32}));
  EXPECT_EQ(o.mlp.optimizers, (std::vector<OptimizerKind>{OptimizerKind::adam, OptimizerKind::sgd}));
  EXPECT_EQ(o.mlp.modes, (std::vector<StepMode>{StepMode::fused, StepMode::graph}));
  EXPECT_EQ(o.mlp.data, (std::vector<BatchSource>{BatchSource::pinned}));
  EXPECT_EQ(o.mlp.threads, (std::vector<int>{1, 3}));
  EXPECT_DOUBLE_EQ(o.mlp.cpu_step_tflop_limit, 0.5);
  EXPECT_DOUBLE_EQ(o.mlp.sample_ms, 8.0);
  EXPECT_EQ(to_string(o.mlp.epoch_models.front()), "784x16x10");
  EXPECT_EQ(o.mlp.epoch_batches, (std::vector<int>{64}));
  EXPECT_EQ(o.mlp.epoch_workers, (std::vector<int>{0, 4}));
  EXPECT_EQ(o.mlp.epoch_pinning, (std::vector<PinMode>{PinMode::direct}));
  const nlohmann::json j = o.json;
  EXPECT_EQ(j["mlp_models"], nlohmann::json::array({"784x64x10", "5x3"}));
  EXPECT_EQ(j["mlp_dtypes"], nlohmann::json::array({"bf16", "fp32"}));
  for (const char* key : {"mlp_batches", "mlp_processors", "mlp_optimizers", "mlp_modes", "mlp_data", "mlp_threads",
                          "mlp_cpu_step_tflop_limit", "mlp_sample_ms", "mlp_epoch_models", "mlp_epoch_batches",
                          "mlp_epoch_workers", "mlp_epoch_pinning"}) {
    EXPECT_TRUE(j.contains(key)) << key;
  }
}

TEST(ParseCommandLine, BadMlpFlagsNameTheFlagAndTheProblem) {
  EXPECT_THAT(parse_error({"--hdbench_mlp_models=784x0x10"}),
              ::testing::AllOf(::testing::HasSubstr("--hdbench_mlp_models"), ::testing::HasSubstr("784x0x10"),
                               ::testing::HasSubstr("not positive")));
  EXPECT_THAT(parse_error({"--hdbench_mlp_models=784x32,abc"}), ::testing::HasSubstr("'abc' is not a whole number"));
  EXPECT_THAT(parse_error({"--hdbench_mlp_dtypes=fp16"}), ::testing::HasSubstr("fp32, tf32, bf16"));
  EXPECT_THAT(parse_error({"--hdbench_mlp_optimizers=lamb"}), ::testing::HasSubstr("sgd, adam"));
  for (const char* bad :
       {"--hdbench_mlp_batches=0", "--hdbench_mlp_batches=-5", "--hdbench_mlp_batches=1048577",
        "--hdbench_mlp_processors=tpu", "--hdbench_mlp_modes=compile", "--hdbench_mlp_data=disk",
        "--hdbench_mlp_threads=0", "--hdbench_mlp_cpu_step_tflop_limit=0", "--hdbench_mlp_cpu_step_tflop_limit=1,2",
        "--hdbench_mlp_sample_ms=0", "--hdbench_mlp_sample_ms=1001", "--hdbench_mlp_epoch_models=",
        "--hdbench_mlp_epoch_batches=65537", "--hdbench_mlp_epoch_workers=-1", "--hdbench_mlp_epoch_pinning=always"}) {
    EXPECT_THROW(parse({bad}), UsageError) << bad;
  }
}

TEST(ParseCommandLine, SeedDefaultsToTheRandomSeedGiven) {
  EXPECT_EQ(parse({}, test_limits(), 7).core.seed, 7u);
  EXPECT_EQ(parse({}, test_limits(), 8).core.seed, 8u);
}

// jq and JavaScript read a JSON integer over 2^53 rounded: a seed is kept below it, given or drawn.
TEST(ParseCommandLine, SeedIsBelowTwoToThe53) {
  EXPECT_EQ(parse({"--hdbench_seed=9007199254740991"}).core.seed, kSeedLimit - 1);
  EXPECT_EQ(parse({"--hdbench_seed=0"}).core.seed, 0u);
  for (const char* bad : {"--hdbench_seed=9007199254740992", "--hdbench_seed=18446744073709551615"}) {
    try {
      parse({bad});
      ADD_FAILURE() << bad << " was taken";
    } catch (const UsageError& e) {
      EXPECT_THAT(e.what(), ::testing::HasSubstr("from 0 to 9007199254740991")) << bad;
    }
  }
  for (int i = 0; i < 1000; ++i) ASSERT_LT(random_seed(), kSeedLimit);
}

TEST(ParseCommandLine, PassesOtherArgumentsThroughInOrder) {
  const Parsed line = parse({"--benchmark_filter=x", "--hdbench_seed=7", "positional", "--benchmark_min_time=0.1",
                             "--hdbench", "-hdbench_seed=3"});
  EXPECT_EQ(line.passthrough, (std::vector<std::string>{"--benchmark_filter=x", "positional",
                                                        "--benchmark_min_time=0.1", "--hdbench", "-hdbench_seed=3"}));
  EXPECT_EQ(line.given, (std::vector<std::string>{"--hdbench_seed=7"}));
  EXPECT_EQ(line.core.seed, 7u);
}

// --- parse_command_line: valid values ---------------------------------------------

TEST(ParseCommandLine, AcceptsEveryFlag) {
  const std::vector<std::string> args = {
      "--hdbench_out=/tmp/r.json",
      "--hdbench_families=staged,transfer",
      "--hdbench_sizes=1M,4K",
      "--hdbench_directions=d2h,h2d,d2h",
      "--hdbench_memory=pinned,mapped",
      "--hdbench_engines=sm",
      "--hdbench_staged_chunks=2M",
      "--hdbench_staged_threads=3,5",
      "--hdbench_staged_slots=8",
      "--hdbench_memcpy_threads=1,3",
      "--hdbench_device=1",
      "--hdbench_seed=9007199254740991",
      "--hdbench_spin_timeout_ms=2.5",
      "--hdbench_stream_sizes=1M,4100",
      "--hdbench_stream_counts=8,3",
      "--hdbench_chunk_counts=1,1024",
      "--hdbench_issue_orders=by_stage",
      "--hdbench_compute_ratios=0.05,4,1.5",
  };
  const Parsed line = parse(args);
  const Parsed& o = line;
  EXPECT_FALSE(o.help);
  EXPECT_EQ(o.core.out_path, "/tmp/r.json");
  EXPECT_EQ(o.core.families, (std::vector<std::string>{"staged", "transfer"}));
  EXPECT_TRUE(o.core.runs_family("staged"));
  EXPECT_FALSE(o.core.runs_family("pinning"));
  EXPECT_FALSE(o.core.runs_family("host_memcpy"));
  EXPECT_EQ(o.transfer.sizes, (std::vector<std::size_t>{4 * kKiB, kMiB}));
  EXPECT_EQ(o.transfer.directions, (std::vector<Direction>{Direction::d2h, Direction::h2d}));
  EXPECT_EQ(o.core.memory_kinds, (std::vector<HostMemoryKind>{HostMemoryKind::pinned, HostMemoryKind::mapped}));
  EXPECT_EQ(o.transfer.engines, (std::vector<Engine>{Engine::sm}));
  EXPECT_EQ(o.transfer.staged_chunk_sizes, (std::vector<std::size_t>{2 * kMiB}));
  EXPECT_EQ(o.transfer.staged_threads, (std::vector<int>{3, 5}));
  EXPECT_EQ(o.transfer.staged_slots, 8);
  EXPECT_EQ(o.transfer.memcpy_threads, (std::vector<int>{1, 3}));
  EXPECT_EQ(o.core.device, 1);
  EXPECT_EQ(o.core.seed, kSeedLimit - 1);
  EXPECT_DOUBLE_EQ(o.core.spin_timeout_ms, 2.5);
  EXPECT_EQ(o.streams.stream_sizes, (std::vector<std::size_t>{4100, kMiB}));
  EXPECT_EQ(o.streams.stream_counts, (std::vector<int>{8, 3}));
  EXPECT_EQ(o.streams.chunk_counts, (std::vector<int>{1, 1024}));
  EXPECT_EQ(o.streams.issue_orders, (std::vector<IssueOrder>{IssueOrder::by_stage}));
  EXPECT_EQ(o.streams.compute_ratios, (std::vector<double>{0.05, 4.0, 1.5}));
  EXPECT_EQ(o.given, args);
  EXPECT_TRUE(line.passthrough.empty());
}

TEST(ParseCommandLine, BoundaryValuesAreAccepted) {
  EXPECT_EQ(parse({"--hdbench_staged_slots=2"}).transfer.staged_slots, 2);
  EXPECT_EQ(parse({"--hdbench_staged_slots=64"}).transfer.staged_slots, 64);
  EXPECT_DOUBLE_EQ(parse({"--hdbench_spin_timeout_ms=1"}).core.spin_timeout_ms, 1.0);
  EXPECT_DOUBLE_EQ(parse({"--hdbench_spin_timeout_ms=600000"}).core.spin_timeout_ms, 600000.0);
  EXPECT_EQ(parse({"--hdbench_seed=0"}).core.seed, 0u);
  EXPECT_EQ(parse({"--hdbench_device=0"}).core.device, 0);
  // Thread lists go up to max(256, 4 x cores).
  EXPECT_EQ(parse({"--hdbench_staged_threads=256"}).transfer.staged_threads, (std::vector<int>{256}));
  EXPECT_EQ(parse({"--hdbench_memcpy_threads=256"}).transfer.memcpy_threads, (std::vector<int>{256}));
  OptionLimits many_cores = test_limits();
  many_cores.hardware_threads = 128;
  EXPECT_EQ(parse({"--hdbench_memcpy_threads=512"}, many_cores).transfer.memcpy_threads, (std::vector<int>{512}));
}

TEST(ParseCommandLine, EveryEnumNameIsAccepted) {
  for (Direction d : all_directions()) {
    EXPECT_EQ(parse({std::string("--hdbench_directions=") + to_string(d)}).transfer.directions,
              (std::vector<Direction>{d}));
  }
  for (HostMemoryKind k : all_host_memory_kinds()) {
    EXPECT_EQ(parse({std::string("--hdbench_memory=") + to_string(k)}).core.memory_kinds,
              (std::vector<HostMemoryKind>{k}));
  }
  for (Engine e : all_engines()) {
    EXPECT_EQ(parse({std::string("--hdbench_engines=") + to_string(e)}).transfer.engines, (std::vector<Engine>{e}));
  }
  for (const std::string& family : kFamilyNames) {
    EXPECT_EQ(parse({"--hdbench_families=" + family}).core.families, (std::vector<std::string>{family}));
  }
}

TEST(ParseCommandLine, LaterFlagWins) {
  const Parsed o = parse({"--hdbench_sizes=4K", "--hdbench_sizes=8K", "--hdbench_seed=1", "--hdbench_seed=2"});
  EXPECT_EQ(o.transfer.sizes, (std::vector<std::size_t>{8 * kKiB}));
  EXPECT_EQ(o.core.seed, 2u);
}

TEST(ParseCommandLine, Help) {
  const Parsed line = parse({"--hdbench_help", "--benchmark_list_tests=true"});
  EXPECT_TRUE(line.help);
  EXPECT_EQ(line.passthrough, (std::vector<std::string>{"--benchmark_list_tests=true"}));
  EXPECT_TRUE(contains(parse_error({"--hdbench_help=1"}), "--hdbench_help"));
}

// --- parse_command_line: bad values -------------------------------------------

TEST(ParseCommandLine, BadValuesNameTheFlagAndWhatIsAccepted) {
  struct Case {
    std::string arg;
    std::string flag;
    std::string accepted;  // a piece of the "accepted: ..." text
  };
  const std::vector<Case> cases = {
      {"--hdbench_out=", "--hdbench_out", "file path"},
      {"--hdbench_families=transfer,bogus", "--hdbench_families", "host_memcpy"},
      {"--hdbench_families=", "--hdbench_families", "host_memcpy"},
      {"--hdbench_families=transfer,", "--hdbench_families", "host_memcpy"},
      {"--hdbench_sizes=4X", "--hdbench_sizes", "4K"},
      {"--hdbench_sizes=0", "--hdbench_sizes", "positive"},
      {"--hdbench_sizes=", "--hdbench_sizes", "4K"},
      {"--hdbench_sizes=1G:4K:x4", "--hdbench_sizes", "FROM:TO:xFACTOR"},
      {"--hdbench_directions=up", "--hdbench_directions", "h2d, d2h, bidir"},
      {"--hdbench_directions=H2D", "--hdbench_directions", "h2d, d2h, bidir"},
      {"--hdbench_directions=", "--hdbench_directions", "h2d, d2h, bidir"},
      {"--hdbench_memory=locked", "--hdbench_memory", "pageable, registered, pinned, pinned_wc, mapped"},
      {"--hdbench_memory=pinned,", "--hdbench_memory", "pageable, registered, pinned, pinned_wc, mapped"},
      {"--hdbench_engines=dma", "--hdbench_engines", "copy, sm"},
      {"--hdbench_staged_chunks=1Q", "--hdbench_staged_chunks", "4K"},
      {"--hdbench_staged_threads=0", "--hdbench_staged_threads", "from 1 to 256"},
      {"--hdbench_staged_threads=257", "--hdbench_staged_threads", "from 1 to 256"},
      {"--hdbench_staged_slots=1", "--hdbench_staged_slots", "from 2 to 64"},
      {"--hdbench_staged_slots=65", "--hdbench_staged_slots", "from 2 to 64"},
      {"--hdbench_staged_slots=2,3", "--hdbench_staged_slots", "one integer from 2 to 64"},
      {"--hdbench_memcpy_threads=x", "--hdbench_memcpy_threads", "from 1 to 256"},
      {"--hdbench_memcpy_threads=-2", "--hdbench_memcpy_threads", "from 1 to 256"},
      {"--hdbench_device=-1", "--hdbench_device", "device index"},
      {"--hdbench_device=gpu0", "--hdbench_device", "device index"},
      {"--hdbench_device=", "--hdbench_device", "device index"},
      {"--hdbench_seed=-1", "--hdbench_seed", "from 0 to 9007199254740991"},
      {"--hdbench_seed=18446744073709551616", "--hdbench_seed", "from 0 to 9007199254740991"},
      {"--hdbench_seed=0x10", "--hdbench_seed", "from 0 to 9007199254740991"},
      {"--hdbench_seed=", "--hdbench_seed", "from 0 to 9007199254740991"},
      {"--hdbench_spin_timeout_ms=0", "--hdbench_spin_timeout_ms", "from 1 to 600000"},
      {"--hdbench_spin_timeout_ms=0.5", "--hdbench_spin_timeout_ms", "from 1 to 600000"},
      {"--hdbench_spin_timeout_ms=600001", "--hdbench_spin_timeout_ms", "from 1 to 600000"},
      {"--hdbench_spin_timeout_ms=-5", "--hdbench_spin_timeout_ms", "from 1 to 600000"},
      {"--hdbench_spin_timeout_ms=nan", "--hdbench_spin_timeout_ms", "from 1 to 600000"},
      {"--hdbench_spin_timeout_ms=inf", "--hdbench_spin_timeout_ms", "from 1 to 600000"},
      {"--hdbench_spin_timeout_ms=5s", "--hdbench_spin_timeout_ms", "from 1 to 600000"},
      {"--hdbench_spin_timeout_ms=", "--hdbench_spin_timeout_ms", "from 1 to 600000"},
      {"--hdbench_stream_sizes=1001", "--hdbench_stream_sizes", "multiples of 4 bytes"},
      {"--hdbench_stream_sizes=4K,6", "--hdbench_stream_sizes", "multiples of 4 bytes"},
      {"--hdbench_stream_sizes=0", "--hdbench_stream_sizes", "positive byte count"},
      {"--hdbench_stream_counts=0", "--hdbench_stream_counts", "from 1 to 64"},
      {"--hdbench_stream_counts=65", "--hdbench_stream_counts", "from 1 to 64"},
      {"--hdbench_chunk_counts=0", "--hdbench_chunk_counts", "from 1 to 1024"},
      {"--hdbench_chunk_counts=1025", "--hdbench_chunk_counts", "from 1 to 1024"},
      {"--hdbench_chunk_counts=4,", "--hdbench_chunk_counts", "from 1 to 1024"},
      {"--hdbench_issue_orders=depth_first", "--hdbench_issue_orders", "by_chunk, by_stage"},
      {"--hdbench_compute_ratios=0", "--hdbench_compute_ratios", "from 0.05 to 4"},
      {"--hdbench_compute_ratios=4.5", "--hdbench_compute_ratios", "from 0.05 to 4"},
      {"--hdbench_compute_ratios=-1", "--hdbench_compute_ratios", "from 0.05 to 4"},
      {"--hdbench_compute_ratios=one", "--hdbench_compute_ratios", "from 0.05 to 4"},
      {"--hdbench_compute_ratios=nan", "--hdbench_compute_ratios", "from 0.05 to 4"},
      {"--hdbench_families=stream", "--hdbench_families", "streams"},
  };
  for (const Case& c : cases) {
    const std::string message = parse_error({"--benchmark_filter=x", c.arg});
    EXPECT_TRUE(contains(message, c.flag)) << c.arg << ": " << message;
    EXPECT_TRUE(contains(message, "accepted")) << c.arg << ": " << message;
    EXPECT_TRUE(contains(message, c.accepted)) << c.arg << ": " << message;
  }
}

TEST(ParseCommandLine, UnknownFlagListsTheKnownOnes) {
  const std::string message = parse_error({"--hdbench_foo=1"});
  EXPECT_TRUE(contains(message, "--hdbench_foo")) << message;
  for (std::string_view flag :
       {"--hdbench_help", "--hdbench_out", "--hdbench_families", "--hdbench_sizes", "--hdbench_directions",
        "--hdbench_memory", "--hdbench_engines", "--hdbench_staged_chunks", "--hdbench_staged_threads",
        "--hdbench_staged_slots", "--hdbench_memcpy_threads", "--hdbench_device", "--hdbench_seed",
        "--hdbench_spin_timeout_ms", "--hdbench_stream_sizes", "--hdbench_stream_counts", "--hdbench_chunk_counts",
        "--hdbench_issue_orders", "--hdbench_compute_ratios"}) {
    EXPECT_TRUE(contains(message, flag)) << flag << ": " << message;
  }
  EXPECT_TRUE(contains(parse_error({"--hdbench_"}), "--hdbench_sizes"));
  EXPECT_TRUE(contains(parse_error({"--hdbench_Sizes=4K"}), "unknown flag"));
  EXPECT_TRUE(contains(parse_error({"--hdbench_size=4K"}), "unknown flag"));
}

TEST(ParseCommandLine, FlagWithoutValueIsRejected) {
  for (std::string_view flag : {"out", "families", "sizes", "directions", "memory", "engines", "staged_chunks",
                                "staged_threads", "staged_slots", "memcpy_threads", "device", "seed", "spin_timeout_ms",
                                "stream_sizes", "stream_counts", "chunk_counts", "issue_orders", "compute_ratios"}) {
    const std::string arg = "--hdbench_" + std::string(flag);
    const std::string message = parse_error({arg});
    EXPECT_TRUE(contains(message, arg)) << message;
    EXPECT_TRUE(contains(message, arg + "=")) << message;  // shows how to give the value
  }
}

TEST(ParseCommandLine, SizesLargerThanMemoryAreRejected) {
  OptionLimits limits = test_limits();
  limits.host_memory_bytes = kGiB;

  // Up to the machine's memory is fine (the default range ends at 1G).
  EXPECT_EQ(parse(kFull, limits).transfer.sizes.back(), kGiB);
  EXPECT_EQ(parse({"--hdbench_sizes=1G"}, limits).transfer.sizes, (std::vector<std::size_t>{kGiB}));

  const std::string sizes_message = parse_error({"--hdbench_sizes=4K,2G"}, limits);
  EXPECT_TRUE(contains(sizes_message, "--hdbench_sizes")) << sizes_message;
  EXPECT_TRUE(contains(sizes_message, "memory")) << sizes_message;
  EXPECT_TRUE(contains(sizes_message, "1GiB")) << sizes_message;
  EXPECT_TRUE(contains(sizes_message, "2GiB")) << sizes_message;
  EXPECT_TRUE(contains(sizes_message, "accepted")) << sizes_message;

  const std::string stream_message = parse_error({"--hdbench_stream_sizes=2G"}, limits);
  EXPECT_TRUE(contains(stream_message, "--hdbench_stream_sizes")) << stream_message;
  EXPECT_TRUE(contains(stream_message, "memory")) << stream_message;

  const std::string chunks_message = parse_error({"--hdbench_staged_chunks=4G"}, limits);
  EXPECT_TRUE(contains(chunks_message, "--hdbench_staged_chunks")) << chunks_message;
  EXPECT_TRUE(contains(chunks_message, "memory")) << chunks_message;

  // Unknown memory (0) does not cap sizes.
  EXPECT_EQ(parse({"--hdbench_sizes=1T"}).transfer.sizes, (std::vector<std::size_t>{std::size_t{1} << 40}));
}

// --- help text and JSON -----------------------------------------------------------

TEST(OptionsHelp, ListsEveryFlag) {
  const std::string help = parse({}).help_text;
  for (std::string_view flag :
       {"--hdbench_help", "--hdbench_out=", "--hdbench_families=", "--hdbench_sizes=", "--hdbench_directions=",
        "--hdbench_memory=", "--hdbench_engines=", "--hdbench_staged_chunks=", "--hdbench_staged_threads=",
        "--hdbench_staged_slots=", "--hdbench_memcpy_threads=", "--hdbench_device=", "--hdbench_seed=",
        "--hdbench_spin_timeout_ms=", "--hdbench_stream_sizes=", "--hdbench_stream_counts=", "--hdbench_chunk_counts=",
        "--hdbench_issue_orders=", "--hdbench_compute_ratios="}) {
    EXPECT_TRUE(contains(help, flag)) << flag;
  }
}

TEST(OptionsToJson, HasTheDocumentedKeys) {
  const Parsed o =
      parse({"--hdbench_sizes=4K,1M", "--hdbench_directions=h2d", "--hdbench_memory=pinned", "--hdbench_engines=copy",
             "--hdbench_out=x.json", "--benchmark_filter=y", "--hdbench_preset=full"});
  const nlohmann::json j = o.json;
  for (const char* key : {"families",
                          "sizes_bytes",
                          "directions",
                          "memory_kinds",
                          "engines",
                          "staged_chunk_sizes_bytes",
                          "staged_threads",
                          "staged_slots",
                          "memcpy_threads",
                          "device",
                          "seed",
                          "spin_timeout_ms",
                          "stream_sizes_bytes",
                          "stream_counts",
                          "chunk_counts",
                          "issue_orders",
                          "compute_ratios",
                          "out_path",
                          "preset",
                          "max_minutes",
                          "arguments"}) {
    EXPECT_TRUE(j.contains(key)) << key;
  }
  EXPECT_EQ(j["families"], nlohmann::json(kFamilyNames));
  EXPECT_EQ(j["sizes_bytes"], nlohmann::json::array({4096, 1 << 20}));
  EXPECT_EQ(j["directions"], nlohmann::json::array({"h2d"}));
  EXPECT_EQ(j["memory_kinds"], nlohmann::json::array({"pinned"}));
  EXPECT_EQ(j["engines"], nlohmann::json::array({"copy"}));
  EXPECT_EQ(j["staged_chunk_sizes_bytes"], nlohmann::json::array({1 << 20, 4 << 20, 16 << 20}));
  EXPECT_EQ(j["staged_slots"], 4);
  EXPECT_EQ(j["device"], 0);
  EXPECT_EQ(j["seed"].get<std::uint64_t>(), kSeed);
  EXPECT_EQ(j["spin_timeout_ms"].get<double>(), 5000.0);
  EXPECT_EQ(j["stream_sizes_bytes"], nlohmann::json::array({256 << 20}));
  EXPECT_EQ(j["issue_orders"], nlohmann::json::array({"by_chunk", "by_stage"}));
  EXPECT_EQ(j["compute_ratios"], nlohmann::json::array({0.5, 1.0, 2.0}));
  EXPECT_EQ(j["out_path"], "x.json");
  EXPECT_EQ(j["preset"], "full");
  EXPECT_EQ(j["max_minutes"], 0.0);
  EXPECT_EQ(j["arguments"],
            nlohmann::json::array({"--hdbench_sizes=4K,1M", "--hdbench_directions=h2d", "--hdbench_memory=pinned",
                                   "--hdbench_engines=copy", "--hdbench_out=x.json", "--hdbench_preset=full"}));
}

}  // namespace
}  // namespace hdbench
