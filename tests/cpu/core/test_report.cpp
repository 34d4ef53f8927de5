#include <benchmark/benchmark.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <atomic>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <regex>
#include <set>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "core/report.hpp"
#include "core/temp_name.hpp"

namespace hdbench {
namespace {

namespace fs = std::filesystem;
using BenchRun = benchmark::BenchmarkReporter::Run;

constexpr const char* kName = "transfer/h2d/pinned/copy/4KiB";

ParamRegistry registry_with_one() {
  ParamRegistry registry;
  registry.add(kName, {{"family", "transfer"}, {"bytes", 4096}, {"memory", "pinned"}});
  return registry;
}

// A finished run as Google Benchmark hands it to reporters.
BenchRun make_run(const std::string& function_name = kName) {
  BenchRun run;
  run.run_name.function_name = function_name;
  run.run_name.time_type = "manual_time";
  run.family_index = 3;
  run.per_family_instance_index = 1;
  run.run_type = BenchRun::RT_Iteration;
  run.repetition_index = 0;
  run.repetitions = 1;
  run.threads = 1;
  run.iterations = 10;
  run.time_unit = benchmark::kMicrosecond;
  run.real_accumulated_time = 1e-3;  // seconds over all iterations
  run.cpu_accumulated_time = 2e-3;
  run.counters["bytes_per_second"] = benchmark::Counter(5e9);
  run.counters["cv_percent"] = benchmark::Counter(1.0);
  return run;
}

// --- ParamRegistry ------------------------------------------------------------------

TEST(ParamRegistry, AddFindAndDuplicates) {
  ParamRegistry registry;
  EXPECT_EQ(registry.size(), 0u);
  EXPECT_EQ(registry.find("a"), nullptr);
  registry.add("a", {{"x", 1}});
  registry.add("b", {{"x", 2}});
  EXPECT_EQ(registry.size(), 2u);
  ASSERT_NE(registry.find("a"), nullptr);
  EXPECT_EQ((*registry.find("a"))["x"], 1);
  EXPECT_EQ((*registry.find("b"))["x"], 2);
  EXPECT_EQ(registry.find("c"), nullptr);
  EXPECT_EQ(registry.find("a/manual_time"), nullptr);
  EXPECT_THROW(registry.add("a", {{"x", 3}}), std::logic_error);
  EXPECT_EQ((*registry.find("a"))["x"], 1);  // the first registration stays
  EXPECT_EQ(registry.size(), 2u);
}

// --- run_to_json ----------------------------------------------------------------------

TEST(RunToJson, OkRunHasGoogleFieldsCountersAndParams) {
  const ParamRegistry registry = registry_with_one();
  const nlohmann::json j = run_to_json(make_run(), registry);
  for (const char* key :
       {"name", "family_index", "per_family_instance_index", "run_name", "run_type", "repetitions", "repetition_index",
        "threads", "iterations", "real_time", "cpu_time", "time_unit", "counters", "params", "status", "notes"}) {
    EXPECT_TRUE(j.contains(key)) << key;
  }
  const std::string full_name = std::string(kName) + "/manual_time";
  EXPECT_EQ(j["name"], full_name);
  EXPECT_EQ(j["run_name"], full_name);
  EXPECT_EQ(j["run_type"], "iteration");
  EXPECT_EQ(j["family_index"], 3);
  EXPECT_EQ(j["per_family_instance_index"], 1);
  EXPECT_EQ(j["iterations"], 10);
  EXPECT_NEAR(j["real_time"].get<double>(), 100.0, 1e-9);  // 1 ms / 10 iterations in us
  EXPECT_NEAR(j["cpu_time"].get<double>(), 200.0, 1e-9);
  EXPECT_EQ(j["time_unit"], "us");
  EXPECT_EQ(j["status"], "ok");
  EXPECT_FALSE(j.contains("skip_reason"));
  EXPECT_FALSE(j.contains("error_occurred"));
  EXPECT_FALSE(j.contains("error_message"));
  EXPECT_FALSE(j.contains("label"));
  EXPECT_FALSE(j.contains("aggregate_name"));

  EXPECT_EQ(j["bytes_per_second"].get<double>(), 5e9);
  EXPECT_EQ(j["counters"]["bytes_per_second"].get<double>(), 5e9);
  EXPECT_EQ(j["cv_percent"].get<double>(), 1.0);
  EXPECT_EQ(j["counters"]["cv_percent"].get<double>(), 1.0);
  EXPECT_EQ(j["counters"].size(), 2u);

  EXPECT_EQ(j["params"], *registry.find(kName));
  EXPECT_EQ(j["params"]["bytes"], 4096);
  ASSERT_TRUE(j["notes"].is_array());
  EXPECT_TRUE(j["notes"].empty());
}

TEST(RunToJson, TimeUnits) {
  const ParamRegistry registry;
  BenchRun run = make_run();
  run.time_unit = benchmark::kNanosecond;
  EXPECT_EQ(run_to_json(run, registry)["time_unit"], "ns");
  EXPECT_NEAR(run_to_json(run, registry)["real_time"].get<double>(), 1e5, 1e-6);
  run.time_unit = benchmark::kMillisecond;
  EXPECT_EQ(run_to_json(run, registry)["time_unit"], "ms");
  run.time_unit = benchmark::kSecond;
  EXPECT_EQ(run_to_json(run, registry)["time_unit"], "s");
  EXPECT_NEAR(run_to_json(run, registry)["real_time"].get<double>(), 1e-4, 1e-12);
}

TEST(RunToJson, UnregisteredNameHasEmptyParams) {
  const nlohmann::json j = run_to_json(make_run("other/benchmark"), registry_with_one());
  ASSERT_TRUE(j["params"].is_object());
  EXPECT_TRUE(j["params"].empty());
}

TEST(RunToJson, SkippedRunGivesTheReason) {
  BenchRun run = make_run();
  run.error_occurred = true;
  run.error_message = std::string(kSkippedPrefix) + "no CUDA driver";
  const nlohmann::json j = run_to_json(run, registry_with_one());
  EXPECT_EQ(j["status"], "skipped");
  EXPECT_EQ(j["skip_reason"], "no CUDA driver");
  EXPECT_EQ(j["error_occurred"], true);
  EXPECT_EQ(j["error_message"], run.error_message);
  EXPECT_EQ(j["params"]["memory"], "pinned");
}

TEST(RunToJson, FailedRunIsAnError) {
  BenchRun run = make_run();
  run.error_occurred = true;
  run.error_message = "verification failed: byte 12 of 4096 differs from the seeded pattern";
  const nlohmann::json j = run_to_json(run, registry_with_one());
  EXPECT_EQ(j["status"], "error");
  EXPECT_FALSE(j.contains("skip_reason"));
  EXPECT_EQ(j["error_occurred"], true);
  EXPECT_EQ(j["error_message"], run.error_message);

  // The prefix counts only at the start.
  run.error_message = std::string("oops, ") + std::string(kSkippedPrefix) + "x";
  EXPECT_EQ(run_to_json(run, registry_with_one())["status"], "error");
}

TEST(RunToJson, LargeSpreadGetsANote) {
  BenchRun run = make_run();
  run.counters["cv_percent"] = benchmark::Counter(7.5);
  const nlohmann::json noisy = run_to_json(run, registry_with_one());
  ASSERT_EQ(noisy["notes"].size(), 1u);
  const std::string note = noisy["notes"][0];
  EXPECT_NE(note.find("large spread"), std::string::npos) << note;
  EXPECT_NE(note.find("7.5%"), std::string::npos) << note;

  for (double cv : {0.0, 4.9, 5.0}) {
    run.counters["cv_percent"] = benchmark::Counter(cv);
    EXPECT_TRUE(run_to_json(run, registry_with_one())["notes"].empty()) << cv;
  }
  run.counters.erase("cv_percent");
  EXPECT_TRUE(run_to_json(run, registry_with_one())["notes"].empty());
}

// A CPU rate above its roof, whose share bench/mlp.cpp left out: the note names the roof
// as wrong. A rate within the roof, or one with its share, gets none.
TEST(RunToJson, ARateAboveTheRoofGetsANoteNamingTheRoof) {
  BenchRun run = make_run();
  run.counters["TFLOP/s"] = benchmark::Counter(0.150);
  run.counters["fp32_roof_TFLOP/s"] = benchmark::Counter(0.102);
  const nlohmann::json beaten = run_to_json(run, registry_with_one());
  ASSERT_EQ(beaten["notes"].size(), 1u);
  const std::string note = beaten["notes"][0];
  EXPECT_NE(note.find("above the CPU's measured fp32 roof: 0.15 TFLOP/s against 0.102"), std::string::npos) << note;
  EXPECT_NE(note.find("fraction_of_fp32_roof is left out"), std::string::npos) << note;

  run.counters["fp32_roof_TFLOP/s"] = benchmark::Counter(0.2);
  run.counters["fraction_of_fp32_roof"] = benchmark::Counter(0.75);
  EXPECT_TRUE(run_to_json(run, registry_with_one())["notes"].empty());
}

TEST(RunToJson, AggregateRun) {
  BenchRun run = make_run();
  run.run_type = BenchRun::RT_Aggregate;
  run.aggregate_name = "median";
  run.aggregate_unit = benchmark::kTime;
  run.repetitions = 5;
  const nlohmann::json j = run_to_json(run, registry_with_one());
  EXPECT_EQ(j["run_type"], "aggregate");
  EXPECT_EQ(j["aggregate_name"], "median");
  EXPECT_EQ(j["aggregate_unit"], "time");
  EXPECT_EQ(j["name"], std::string(kName) + "/manual_time_median");
  EXPECT_EQ(j["run_name"], std::string(kName) + "/manual_time");
  EXPECT_FALSE(j.contains("repetition_index"));
  EXPECT_EQ(j["params"], *registry_with_one().find(kName));

  run.aggregate_name = "cv";
  run.aggregate_unit = benchmark::kPercentage;
  EXPECT_EQ(run_to_json(run, registry_with_one())["aggregate_unit"], "percentage");
}

TEST(RunToJson, Label) {
  BenchRun run = make_run();
  run.report_label = "pinned 4KiB";
  EXPECT_EQ(run_to_json(run, registry_with_one())["label"], "pinned 4KiB");
}

// --- context and the collecting reporter ---------------------------------------------------

TEST(ContextToJson, HasGoogleContextFields) {
  const benchmark::BenchmarkReporter::Context context;
  const nlohmann::json j = context_to_json(context);
  for (const char* key : {"date", "host_name", "executable", "num_cpus", "mhz_per_cpu", "cpu_scaling_enabled", "caches",
                          "load_avg", "library_build_type"}) {
    EXPECT_TRUE(j.contains(key)) << key;
  }
  EXPECT_GT(j["num_cpus"].get<int>(), 0);
  EXPECT_TRUE(j["caches"].is_array());
  EXPECT_TRUE(std::regex_match(j["date"].get<std::string>(), std::regex(R"(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d[+-]\d{4})")))
      << j["date"];
}

class CountingReporter : public benchmark::BenchmarkReporter {
 public:
  bool ReportContext(const Context&) override {
    ++contexts;
    return true;
  }
  void ReportRuns(const std::vector<Run>& runs) override { runs_seen += runs.size(); }
  void Finalize() override { ++finalized; }

  int contexts = 0;
  std::size_t runs_seen = 0;
  int finalized = 0;
};

TEST(CollectingReporter, KeepsRunsAndForwardsEverything) {
  const ParamRegistry registry = registry_with_one();
  CountingReporter display;
  CollectingReporter collector(display, registry);
  EXPECT_TRUE(collector.ReportContext(benchmark::BenchmarkReporter::Context()));
  EXPECT_TRUE(collector.context().contains("num_cpus"));

  BenchRun skipped = make_run();
  skipped.error_occurred = true;
  skipped.error_message = std::string(kSkippedPrefix) + "needs a GPU";
  collector.ReportRuns({make_run(), skipped});
  collector.ReportRuns({make_run("other")});
  collector.Finalize();

  EXPECT_EQ(display.contexts, 1);
  EXPECT_EQ(display.runs_seen, 3u);
  EXPECT_EQ(display.finalized, 1);
  EXPECT_EQ(collector.runs_done(), 2u);
  ASSERT_EQ(collector.benchmarks().size(), 3u);
  EXPECT_EQ(collector.benchmarks()[0]["status"], "ok");
  EXPECT_EQ(collector.benchmarks()[1]["status"], "skipped");
  EXPECT_EQ(collector.benchmarks()[1]["skip_reason"], "needs a GPU");
  EXPECT_TRUE(collector.benchmarks()[2]["params"].empty());
}

// --- files -------------------------------------------------------------------------------

class ReportFiles : public ::testing::Test {
 protected:
  void SetUp() override {
    static std::atomic<int> counter{0};
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    dir_ = fs::temp_directory_path() / ("hdbench_report_" + std::string(info->name()) + "_" +
                                        std::to_string(::getpid()) + "_" + std::to_string(counter++));
    fs::remove_all(dir_);
    ASSERT_TRUE(fs::create_directories(dir_));
  }

  void TearDown() override {
    std::error_code ec;
    fs::remove_all(dir_, ec);
  }

  static std::string read(const fs::path& path) {
    std::ifstream in(path, std::ios::binary);
    return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
  }

  static void write(const fs::path& path, const std::string& content) {
    std::ofstream(path, std::ios::binary) << content;
  }

  // Names of everything directly in `dir`.
  static std::set<std::string> entries(const fs::path& dir) {
    std::set<std::string> names;
    for (const auto& entry : fs::directory_iterator(dir)) names.insert(entry.path().filename().string());
    return names;
  }

  // Temp files write_file_atomically would leave: ".<name>.tmp-<pid>".
  static std::vector<std::string> temps(const fs::path& dir) {
    std::vector<std::string> found;
    const std::regex pattern(R"(\..*\.tmp-.*)");
    for (const std::string& name : entries(dir)) {
      if (std::regex_match(name, pattern)) found.push_back(name);
    }
    return found;
  }

  fs::path dir_;
};

TEST_F(ReportFiles, WritesExactContent) {
  const fs::path path = dir_ / "report.json";
  std::string content = "{\"a\": 1}\n";
  content += std::string("\0binary\xff", 8);
  write_file_atomically(path, content);
  EXPECT_EQ(read(path), content);
  EXPECT_EQ(fs::file_size(path), content.size());
  EXPECT_EQ(entries(dir_), (std::set<std::string>{"report.json"}));
}

TEST_F(ReportFiles, WritesLargeAndEmptyContent) {
  std::string big(3 * 1024 * 1024 + 17, '\0');
  for (std::size_t i = 0; i < big.size(); ++i) big[i] = static_cast<char>('a' + i % 26);
  write_file_atomically(dir_ / "big.json", big);
  EXPECT_EQ(read(dir_ / "big.json"), big);
  write_file_atomically(dir_ / "empty.json", "");
  EXPECT_TRUE(fs::exists(dir_ / "empty.json"));
  EXPECT_EQ(fs::file_size(dir_ / "empty.json"), 0u);
  EXPECT_TRUE(temps(dir_).empty());
}

TEST_F(ReportFiles, ReplacesAnExistingFile) {
  const fs::path path = dir_ / "report.json";
  write(path, "old content that is longer than the new one");
  write(dir_ / "neighbour.txt", "keep");
  write_file_atomically(path, "new");
  EXPECT_EQ(read(path), "new");
  write_file_atomically(path, "newer");
  EXPECT_EQ(read(path), "newer");
  EXPECT_EQ(read(dir_ / "neighbour.txt"), "keep");
  EXPECT_EQ(entries(dir_), (std::set<std::string>{"neighbour.txt", "report.json"}));
  EXPECT_TRUE(temps(dir_).empty());
}

TEST_F(ReportFiles, TargetThatIsADirectoryIsLeftAlone) {
  const fs::path target = dir_ / "report.json";
  ASSERT_TRUE(fs::create_directory(target));
  write(target / "inside.txt", "inside");
  write(dir_ / "other.txt", "other");
  EXPECT_THROW(write_file_atomically(target, "{}"), std::runtime_error);
  EXPECT_TRUE(fs::is_directory(target));
  EXPECT_EQ(read(target / "inside.txt"), "inside");
  EXPECT_EQ(entries(target), (std::set<std::string>{"inside.txt"}));
  EXPECT_EQ(read(dir_ / "other.txt"), "other");
  EXPECT_EQ(entries(dir_), (std::set<std::string>{"other.txt", "report.json"}));
  EXPECT_TRUE(temps(dir_).empty());

  // An empty directory is not replaced either.
  const fs::path empty_dir = dir_ / "empty";
  ASSERT_TRUE(fs::create_directory(empty_dir));
  EXPECT_THROW(write_file_atomically(empty_dir, "{}"), std::runtime_error);
  EXPECT_TRUE(fs::is_directory(empty_dir));
  EXPECT_TRUE(temps(dir_).empty());
}

TEST_F(ReportFiles, MissingParentThrowsWithoutLeftovers) {
  EXPECT_THROW(write_file_atomically(dir_ / "missing" / "report.json", "{}"), std::runtime_error);
  EXPECT_TRUE(entries(dir_).empty());
}

TEST_F(ReportFiles, CheckWritableCreatesMissingParents) {
  const fs::path path = dir_ / "a" / "b" / "report.json";
  EXPECT_NO_THROW(check_writable(path));
  EXPECT_TRUE(fs::is_directory(dir_ / "a" / "b"));
  EXPECT_FALSE(fs::exists(path));                  // only checked, not written
  EXPECT_TRUE(entries(dir_ / "a" / "b").empty());  // the probe is gone
  write_file_atomically(path, "ok");
  EXPECT_EQ(read(path), "ok");
}

TEST_F(ReportFiles, CheckWritableKeepsAnExistingReport) {
  const fs::path path = dir_ / "report.json";
  write(path, "earlier report");
  EXPECT_NO_THROW(check_writable(path));
  EXPECT_EQ(read(path), "earlier report");
  EXPECT_EQ(entries(dir_), (std::set<std::string>{"report.json"}));
}

TEST_F(ReportFiles, CheckWritableRejectsADirectory) {
  try {
    check_writable(dir_);
    FAIL() << "no exception";
  } catch (const std::runtime_error& error) {
    EXPECT_NE(std::string(error.what()).find("is a directory"), std::string::npos) << error.what();
  }
  EXPECT_TRUE(fs::is_directory(dir_));
}

TEST_F(ReportFiles, CheckWritableRejectsAPathUnderAFile) {
  write(dir_ / "file.txt", "plain file");
  EXPECT_THROW(check_writable(dir_ / "file.txt" / "report.json"), std::runtime_error);
  EXPECT_THROW(check_writable(dir_ / "file.txt" / "sub" / "report.json"), std::runtime_error);
  EXPECT_TRUE(fs::is_regular_file(dir_ / "file.txt"));
  EXPECT_EQ(read(dir_ / "file.txt"), "plain file");
  EXPECT_EQ(entries(dir_), (std::set<std::string>{"file.txt"}));
}

TEST(CheckWritable, EmptyPathThrows) { EXPECT_THROW(check_writable(""), std::runtime_error); }

// --- build info ------------------------------------------------------------------------------

TEST(BuildInfo, HasVersionRevisionTypeAndArchitectures) {
  const nlohmann::json info = build_info();
  for (const char* key : {"version", "git_revision", "build_type", "cuda_architectures"}) {
    ASSERT_TRUE(info.contains(key)) << key;
    ASSERT_TRUE(info[key].is_string()) << key;
    EXPECT_FALSE(info[key].get<std::string>().empty()) << key;
  }
  EXPECT_TRUE(std::regex_match(info["version"].get<std::string>(), std::regex(R"(\d+\.\d+\.\d+)"))) << info["version"];
}

}  // namespace
}  // namespace hdbench

TEST(TempPathBeside, StaysWithinTheFileSystemsNameLimitAndApartForTwoLongNames) {
  // A 250-byte report name was checked writable, then its ".NAME.tmp-PID" could not be made.
  const std::string stem(246, 'b');
  const std::filesystem::path report = std::filesystem::path("/out") / (stem + ".json");
  const std::filesystem::path trace = std::filesystem::path("/out") / (stem + ".trace");
  EXPECT_LE(hdbench::temp_path_beside(report).filename().string().size(), 255u);
  EXPECT_EQ(hdbench::temp_path_beside(report).parent_path(), std::filesystem::path("/out"));
  EXPECT_NE(hdbench::temp_path_beside(report), hdbench::temp_path_beside(trace));  // streamed beside each other
  EXPECT_EQ(hdbench::temp_path_beside("r.json").parent_path(), std::filesystem::path("."));
}
