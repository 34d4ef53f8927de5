// hdbench_profile's hand-over path without CUPTI: records appended on several threads
// (per-thread HostRecordBuffers buffers, handed over in batches, at thread exit and by
// flush_all) and handed straight to the sink land in the records file exactly once,
// as whole JSON lines written by the sink's own thread, the end line last; a hand-over
// after finish() is ignored; the queue's bound drops and counts rather than grows.
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <atomic>
#include <filesystem>
#include <fstream>
#include <latch>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "trace/host_records.hpp"
#include "trace/profile_sink.hpp"

namespace hdbench::trace {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

class ProfileSinkTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / fmt::format("hdbench-profile-sink-{}-{}", ::getpid(),
                                                   ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  // Every line of the records file, each parsed (a torn line fails the parse).
  std::vector<json> lines(const ProfileSink& sink) const {
    std::ifstream in(sink.records_path());
    std::vector<json> out;
    for (std::string line; std::getline(in, line);) {
      EXPECT_TRUE(json::accept(line)) << "not one JSON object: " << line;
      if (json::accept(line)) out.push_back(json::parse(line));
    }
    return out;
  }

  static json process() { return {{"type", "process"}, {"pid", ::getpid()}, {"origin_ns", 1234}}; }

  fs::path dir_;
};

Record gpu_record(std::uint32_t correlation) {
  Record r;
  r.kind = RecordKind::kernel;
  r.start_ns = 1000 + correlation;
  r.end_ns = r.start_ns + 10;
  r.name = "void kernel<float>(float*)";
  r.device = 0;
  r.stream = 7;
  r.correlation = correlation;
  return r;
}

TEST_F(ProfileSinkTest, RecordsFromSeveralThreadsLandOnceAsWholeLinesEndLast) {
  constexpr int kThreads = 6, kPerThread = 5000;
  ProfileSink sink(dir_, process());
  sink.started(1000);
  HostRecordBuffers buffers(sink, 64);  // small batches: many hand-overs
  std::vector<std::uint64_t> tids(kThreads);
  std::latch appended(kThreads), release(1);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      tids[t] = os_thread_id();
      for (int i = 0; i < kPerThread; ++i) {
        const auto correlation = static_cast<std::uint32_t>(t * kPerThread + i);
        if (i % 10 == 9) {
          buffers.range(fmt::format("range {} {}", t, i), 2000 + i, 2100 + i);
        } else {
          buffers.api(i % 2 == 0 ? "cudaLaunchKernel" : "cudaMemcpyAsync", 2000 + i, 2005 + i, correlation);
        }
      }
      appended.count_down();
      // Half the threads end now (their buffer is handed over at exit); the others
      // are still alive when flush_all() runs, as at process exit.
      if (t % 2 == 1) release.wait();
    });
  }
  // CUPTI's buffer thread, handing GPU records straight to the sink.
  constexpr int kGpu = 20000;
  std::thread cupti([&] {
    std::vector<Record> batch;
    for (int i = 0; i < kGpu; ++i) {
      batch.push_back(gpu_record(static_cast<std::uint32_t>(1'000'000 + i)));
      if (batch.size() == 777) sink.consume(batch);
      EXPECT_LT(batch.size(), 777u);  // consume() takes the records
    }
    sink.consume(batch);
  });
  appended.wait();
  for (int t = 0; t < kThreads; t += 2) threads[t].join();
  cupti.join();
  buffers.flush_all();
  sink.finish({}, 0);
  release.count_down();
  for (int t = 1; t < kThreads; t += 2) threads[t].join();

  const std::vector<json> all = lines(sink);
  ASSERT_GE(all.size(), 2u);
  EXPECT_EQ(all.front()["type"], "process");
  EXPECT_EQ(all.front()["origin_ns"], 1234);
  const json& end = all.back();
  ASSERT_EQ(end["type"], "end");
  const std::size_t expected = kThreads * kPerThread + kGpu;
  EXPECT_EQ(end["records"], expected);
  EXPECT_EQ(end["over_budget"], 0);
  EXPECT_EQ(end["cupti_dropped"], 0);
  EXPECT_EQ(end["writer_dropped"], 0);
  EXPECT_EQ(end["trace"], fmt::format("trace-{}.json", ::getpid()));
  EXPECT_EQ(all.size(), expected + 2);

  std::set<std::uint32_t> correlations;
  std::set<std::string> range_names;
  const std::set<std::uint64_t> threads_seen(tids.begin(), tids.end());
  for (std::size_t i = 1; i + 1 < all.size(); ++i) {
    const json& line = all[i];
    ASSERT_NE(line["type"], "end");
    ASSERT_NE(line["type"], "process");
    if (line["type"] == "range") {
      EXPECT_TRUE(range_names.insert(line["name"].get<std::string>()).second) << line;
      EXPECT_TRUE(threads_seen.contains(line["thread"].get<std::uint64_t>()));
    } else {
      EXPECT_TRUE(correlations.insert(line["correlation"].get<std::uint32_t>()).second) << "twice: " << line;
      if (line["type"] == "api") {
        EXPECT_TRUE(threads_seen.contains(line["thread"].get<std::uint64_t>())) << line;
      }
    }
  }
  EXPECT_EQ(range_names.size(), kThreads * kPerThread / 10);
  EXPECT_EQ(correlations.size(), expected - range_names.size());
  // The trace is whole JSON with every record.
  const json trace = json::parse(std::ifstream(dir_ / fmt::format("trace-{}.json", ::getpid())));
  std::size_t events = 0;
  for (const json& e : trace["traceEvents"]) events += e["ph"] == "X" ? 1 : 0;
  EXPECT_EQ(events, expected);
}

TEST_F(ProfileSinkTest, AHandOverAfterFinishIsIgnored) {
  ProfileSink sink(dir_, process());
  HostRecordBuffers buffers(sink, 4);
  buffers.api("cudaMemcpy", 10, 20, 1);
  buffers.flush_all();
  sink.finish({}, 3);
  const std::vector<json> before = lines(sink);
  ASSERT_EQ(before.size(), 3u);
  EXPECT_EQ(before.back()["type"], "end");
  EXPECT_EQ(before.back()["cupti_dropped"], 3);
  EXPECT_EQ(before.back()["trace"], nullptr);  // started() never came: no trace

  std::vector<Record> late = {gpu_record(5), gpu_record(6)};
  sink.consume(late);
  EXPECT_TRUE(late.empty());
  for (int i = 0; i < 10; ++i) buffers.api("cudaMemcpy", 30, 40, 100 + i);  // full batches handed over
  std::thread([&] { buffers.range("late", 1, 2); }).join();                 // and at a thread's exit
  buffers.flush_all();
  sink.finish({}, 0);  // a second finish changes nothing
  EXPECT_EQ(lines(sink).size(), before.size());
  EXPECT_EQ(sink.counts().after_finish, 13u);
}

TEST_F(ProfileSinkTest, TheEndLineCarriesWhatTheLibraryAddsToIt) {
  // The injection library's clock pair (CUPTI's clock beside CLOCK_MONOTONIC) at exit.
  ProfileSink sink(dir_, process());
  sink.finish({}, 0, {{"clock", {{"cupti_ns", 1000}, {"monotonic_ns", 400}}}});
  const std::vector<json> written = lines(sink);
  ASSERT_EQ(written.size(), 2u);
  EXPECT_EQ(written.back()["type"], "end");
  EXPECT_EQ(written.back()["clock"]["cupti_ns"], 1000);
  EXPECT_EQ(written.back()["clock"]["monotonic_ns"], 400);
  EXPECT_EQ(written.back()["records"], 0);
}

TEST_F(ProfileSinkTest, TheBudgetCountsAndUnkeptCallsAreLeftOut) {
  ProfileSink sink(dir_, process(), {.budget = 5});
  std::vector<Record> batch;
  for (std::uint32_t i = 0; i < 8; ++i) batch.push_back(gpu_record(i));
  Record unkept;
  unkept.kind = RecordKind::api;
  unkept.name = "cudaGetDevice";
  batch.push_back(unkept);
  sink.consume(batch);
  sink.finish({}, 0);
  const std::vector<json> all = lines(sink);
  ASSERT_EQ(all.size(), 5u + 2u);
  EXPECT_EQ(all.back()["records"], 5);
  EXPECT_EQ(all.back()["over_budget"], 3);
}

TEST_F(ProfileSinkTest, ABoundedQueueDropsAndCountsWhatTheWriterCannotTake) {
  ProfileSinkLimits limits;
  limits.queue_limit = 1;
  limits.max_wait = std::chrono::milliseconds(0);
  ProfileSink sink(dir_, process(), limits);
  constexpr std::uint32_t kBatches = 2000;
  for (std::uint32_t i = 0; i < kBatches; ++i) {
    std::vector<Record> one = {gpu_record(i)};
    sink.consume(one);
  }
  sink.finish({}, 1);
  const std::vector<json> all = lines(sink);
  const json& end = all.back();
  ASSERT_EQ(end["type"], "end");
  const auto dropped = end["writer_dropped"].get<std::size_t>();
  EXPECT_EQ(end["records"].get<std::size_t>() + dropped, kBatches);
  EXPECT_EQ(end["cupti_dropped"].get<std::size_t>(), dropped + 1);
  EXPECT_EQ(all.size(), kBatches - dropped + 2);
}

TEST_F(ProfileSinkTest, WithoutFinishTheFileHasNoEndLineAndNoTraceIsLeft) {
  fs::path records;
  {
    ProfileSink sink(dir_, process());
    sink.started(0);
    records = sink.records_path();
    std::vector<Record> batch = {gpu_record(1)};
    sink.consume(batch);
  }
  std::vector<std::string> names;
  for (const auto& entry : fs::directory_iterator(dir_)) names.push_back(entry.path().filename().string());
  EXPECT_EQ(names, std::vector<std::string>{records.filename().string()});
  std::ifstream in(records);
  std::string first;
  std::getline(in, first);
  EXPECT_EQ(json::parse(first)["type"], "process");
}

TEST(KeptApiCalls, LaunchesCopiesAndWaitsAreKeptTheRestNot) {
  for (const char* cupti_name : {"cudaLaunchKernel_v7000", "cudaLaunchKernel_ptsz_v7000", "cudaLaunchKernelExC_v11060",
                                 "cudaLaunchCooperativeKernel_v9000", "cudaGraphLaunch_ptsz_v10000",
                                 "cudaMemcpyAsync_ptsz_v7000", "cudaMemsetAsync_v3020", "cudaStreamSynchronize_v3020",
                                 "cudaDeviceSynchronize_v3020", "cudaHostAlloc_v3020", "cudaFree_v3020"}) {
    EXPECT_TRUE(kept_api_call(api_name_as_called(cupti_name))) << cupti_name;
  }
  for (const char* cupti_name : {"cudaGetDevice_v3020", "cudaStreamIsCapturing_v10000", "cudaLaunchHostFunc_v10000",
                                 "cudaMalloc_v3020", "cudaFreeAsync_v11020", "cudaEventRecord_v3020"}) {
    EXPECT_FALSE(kept_api_call(api_name_as_called(cupti_name))) << cupti_name;
  }
  EXPECT_TRUE(kept_driver_call(api_name_as_called("cuLaunchKernel_ptsz")));
  EXPECT_TRUE(kept_driver_call(api_name_as_called("cuLaunchKernelEx")));
  EXPECT_FALSE(kept_driver_call(api_name_as_called("cuLaunchHostFunc")));
}

TEST(RecordParts, AllByDefaultAnySubsetOrNone) {
  std::string error;
  for (const char* all : {static_cast<const char*>(nullptr), "", "gpu,api,nvtx", "nvtx,gpu,api"}) {
    const auto parts = parse_record_parts(all, error);
    ASSERT_TRUE(parts.has_value()) << (all ? all : "(unset)");
    EXPECT_TRUE(parts->gpu && parts->api && parts->nvtx);
    EXPECT_EQ(to_string(*parts), "gpu,api,nvtx");
  }
  const auto gpu = parse_record_parts("gpu", error);
  ASSERT_TRUE(gpu.has_value());
  EXPECT_TRUE(gpu->gpu && !gpu->api && !gpu->nvtx);
  EXPECT_EQ(to_string(*gpu), "gpu");
  const auto api_nvtx = parse_record_parts("nvtx,api", error);
  ASSERT_TRUE(api_nvtx.has_value());
  EXPECT_EQ(to_string(*api_nvtx), "api,nvtx");
  const auto none = parse_record_parts("none", error);
  ASSERT_TRUE(none.has_value());
  EXPECT_TRUE(!none->gpu && !none->api && !none->nvtx);
  EXPECT_EQ(to_string(*none), "none");
  EXPECT_TRUE(error.empty());
}

TEST(RecordParts, AnUnknownPartIsRefusedNamingIt) {
  for (const char* bad : {"gpu,kernels", "gpu,", "GPU", "none,gpu", ","}) {
    std::string error;
    EXPECT_FALSE(parse_record_parts(bad, error).has_value()) << bad;
    EXPECT_NE(error.find("HDBENCH_PROFILE_RECORD="), std::string::npos) << error;
    EXPECT_NE(error.find("gpu, api, nvtx"), std::string::npos) << error;
  }
}

}  // namespace
}  // namespace hdbench::trace
