// Checks hdbench's NVTX conventions (lib/nvtx.hpp) through the capture injection
// library (tests/nvtx/capture_injection.cpp): no Nsight, no GPU. How the log is read:
// capture_log.hpp.

#include <gtest/gtest.h>
#include <nvtx3/nvToolsExt.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <barrier>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "capture_log.hpp"
#include "core/cuda.hpp"
#include "core/nvtx.hpp"
#include "core/system.hpp"
#include "families.hpp"
#include "mlp/mlp_description.hpp"
#include "pipeline/loader_nvtx.hpp"
#include "streams/stream_pipeline.hpp"
#include "streams/stream_workload.hpp"
#include "streams/streams_description.hpp"
#include "transfer/transfer_description.hpp"

namespace {

namespace nvtx = hdbench::nvtx;
using namespace hdbench::nvtx_capture;

// Every family's category, as its description declares it (bench/families.cpp: the
// one list of families; no second list here).
std::vector<nvtx::Category> family_categories() {
  const hdbench::DataOptions data;
  const hdbench::DeviceSelection devices;
  std::vector<nvtx::Category> categories;
  for (const auto& family : hdbench::make_families(data, devices)) {
    for (const std::string& name : family->names()) categories.push_back(family->describe(name).nvtx);
  }
  return categories;
}

// Where the log ended when this process started, before any NVTX call: the
// domain and its categories are created once per process, by whichever test
// opens the first range.
const std::uintmax_t g_process_start = capture_path() != nullptr ? log_size() : 0;

TEST_F(NvtxRanges, NestedRangesArePushedAndPoppedInOrderOnTheCallingThread) {
  {
    nvtx::ScopedRange outer(hdbench::kStagedNvtx, "staged/nested-outer", 4096);
    { nvtx::ScopedRange inner(hdbench::kTransferNvtx, "transfer/nested-inner", 1u << 20); }
  }
  const std::string tid = tid_string();
  const std::vector<Fields> expected = {
      push_line(tid, hdbench::kStagedNvtx, 4096, "staged/nested-outer"),
      push_line(tid, hdbench::kTransferNvtx, 1u << 20, "transfer/nested-inner"),
      pop_line(tid),
      pop_line(tid),
  };
  const auto lines = range_lines(since_start(), tid);
  EXPECT_EQ(lines, expected) << "got:\n" << describe(lines) << "want:\n" << describe(expected);
}

TEST_F(NvtxRanges, EveryFamilyCarriesItsCategoryColourAndBytes) {
  std::uint64_t bytes = 1000;
  std::vector<Fields> expected;
  const std::string tid = tid_string();
  for (const nvtx::Category& family : family_categories()) {
    const std::string name = std::string(family.name) + "/each-family";
    { nvtx::ScopedRange range(family, name, bytes); }
    expected.push_back(push_line(tid, family, bytes, name));
    expected.push_back(pop_line(tid));
    bytes = bytes * 3 + 7;
  }
  const auto lines = range_lines(since_start(), tid);
  EXPECT_EQ(lines, expected) << "got:\n" << describe(lines) << "want:\n" << describe(expected);
}

TEST_F(NvtxRanges, PayloadIsTheFullUnsignedByteCountAndDefaultsToZero) {
  { nvtx::ScopedRange range(hdbench::kMlpNvtx, "mlp/no-bytes"); }
  { nvtx::ScopedRange range(hdbench::kLoaderNvtx, "loader/huge", UINT64_MAX); }
  const std::string tid = tid_string();
  const auto lines = range_lines(since_start(), tid);
  ASSERT_EQ(lines.size(), 4u) << describe(lines);
  ASSERT_EQ(lines[0].size(), 7u) << describe(lines);
  ASSERT_EQ(lines[2].size(), 7u) << describe(lines);
  EXPECT_EQ(lines[0][5], "0");
  EXPECT_EQ(lines[2][5], "18446744073709551615");
}

// Needs no capture: a plain check of the palette the ranges carry.
TEST(NvtxFamilies, ColoursAreOpaqueAndDistinct) {
  std::map<std::uint32_t, std::string> seen;
  for (const nvtx::Category& family : family_categories()) {
    const std::uint32_t color = family.argb;
    EXPECT_EQ(color >> 24, 0xFFu) << family.name << " is not opaque";
    const auto [it, inserted] = seen.emplace(color, family.name);
    EXPECT_TRUE(inserted) << family.name << " shares its colour with " << it->second;
  }
}

TEST_F(NvtxRanges, TabsAndNewlinesInNamesDoNotBreakTheLog) {
  { nvtx::ScopedRange range(hdbench::kStreamsNvtx, "streams/a\tb\nc", 1); }
  const std::string tid = tid_string();
  const std::vector<Fields> expected = {
      push_line(tid, hdbench::kStreamsNvtx, 1, "streams/a b c"),
      pop_line(tid),
  };
  const auto lines = range_lines(since_start(), tid);
  EXPECT_EQ(lines, expected) << "got:\n" << describe(lines) << "want:\n" << describe(expected);
}

TEST_F(NvtxRanges, RangesOnTwoThreadsStayBalancedPerThread) {
  constexpr int kRounds = 5;
  std::barrier sync(2);
  std::string tids[2];
  auto worker = [&](int index) {
    tids[index] = tid_string();
    const auto family = index == 0 ? hdbench::kLoaderNvtx : hdbench::kStreamsNvtx;
    const std::string prefix = std::string(family.name) + "/thread" + std::to_string(index);
    for (int round = 0; round < kRounds; ++round) {
      nvtx::ScopedRange outer(family, prefix + "-outer", static_cast<std::uint64_t>(round));
      sync.arrive_and_wait();  // both threads hold an open range here
      { nvtx::ScopedRange inner(family, prefix + "-inner", 1); }
      sync.arrive_and_wait();
    }
  };
  std::thread first(worker, 0);
  std::thread second(worker, 1);
  first.join();
  second.join();

  ASSERT_NE(tids[0], tids[1]);
  const auto all = since_start();
  for (int index = 0; index < 2; ++index) {
    SCOPED_TRACE("thread " + std::to_string(index) + " tid " + tids[index]);
    const auto family = index == 0 ? hdbench::kLoaderNvtx : hdbench::kStreamsNvtx;
    const std::string prefix = std::string(family.name) + "/thread" + std::to_string(index);
    std::vector<Fields> expected;
    for (int round = 0; round < kRounds; ++round) {
      expected.push_back(push_line(tids[index], family, static_cast<std::uint64_t>(round), prefix + "-outer"));
      expected.push_back(push_line(tids[index], family, 1, prefix + "-inner"));
      expected.push_back(pop_line(tids[index]));
      expected.push_back(pop_line(tids[index]));
    }
    const auto lines = range_lines(all, tids[index]);
    EXPECT_EQ(lines, expected) << "got:\n" << describe(lines) << "want:\n" << describe(expected);
  }

  // The ranges really overlapped in time: both first pushes precede any pop.
  std::size_t pushes_before_first_pop = 0;
  for (const Fields& f : all) {
    if (f.size() < 3 || f[1] != nvtx::kDomainName || (f[2] != tids[0] && f[2] != tids[1])) {
      continue;
    }
    if (f[0] == "pop") break;
    if (f[0] == "push") ++pushes_before_first_pop;
  }
  EXPECT_GE(pushes_before_first_pop, 2u);
}

TEST_F(NvtxRanges, NameCurrentThreadNamesTheCallingOsThread) {
  std::string worker_tid;
  std::thread worker([&] {
    worker_tid = tid_string();
    nvtx::name_current_thread("loader/worker 3");
  });
  worker.join();
  const Fields expected = {"thread", worker_tid, "loader/worker 3"};
  std::size_t matches = 0;
  for (const Fields& f : since_start()) {
    if (f.size() >= 1 && f[0] == "thread") {
      EXPECT_EQ(f, expected) << describe({f});
      matches += f == expected ? 1 : 0;
    }
  }
  EXPECT_EQ(matches, 1u);
}

TEST_F(NvtxRanges, NameStreamIsForwarded) {
  // No GPU here: the call only forwards the handle, so any non-null value works.
  const auto fake_stream = reinterpret_cast<cudaStream_t>(std::uintptr_t{0x5eed});
  nvtx::name_stream(fake_stream, "h2d-under-test");
  const std::vector<Fields> expected = {{"stream", "h2d-under-test"}};
  std::vector<Fields> streams;
  for (const Fields& f : since_start()) {
    if (!f.empty() && f[0] == "stream") streams.push_back(f);
  }
  EXPECT_EQ(streams, expected) << describe(streams);
}

// A category is named the first time a range of it is pushed, and never again.
TEST_F(NvtxRanges, DomainIsCreatedOnceAndEachFamilysCategoryNamedOnce) {
  for (int round = 0; round < 2; ++round) {
    for (const nvtx::Category& family : family_categories()) {
      nvtx::ScopedRange range(family, std::string(family.name) + "/ensure-named");
    }
  }
  const auto lines = lines_since(g_process_start);
  std::size_t domains = 0;
  std::map<std::string, std::string> categories;  // id -> name
  bool category_before_domain = false;
  for (const Fields& f : lines) {
    if (f.size() == 2 && f[0] == "domain" && f[1] == nvtx::kDomainName) ++domains;
    if (f.size() == 4 && f[0] == "category" && f[1] == nvtx::kDomainName) {
      if (domains == 0) category_before_domain = true;
      EXPECT_TRUE(categories.emplace(f[2], f[3]).second) << "category " << f[2] << " named twice";
    }
  }
  EXPECT_EQ(domains, 1u) << "the \"hdbench\" domain must be created exactly once per process";
  EXPECT_FALSE(category_before_domain);
  std::map<std::string, std::string> expected;
  for (const nvtx::Category& family : family_categories()) expected[category_id(family)] = family.name;
  EXPECT_EQ(categories, expected);
}

// The capture also records the non-domain API, which tools outside hdbench use.
TEST_F(NvtxRanges, DefaultDomainRangesAreCaptured) {
  nvtxRangePushA("core/plain");
  nvtxEventAttributes_t attributes{};
  attributes.version = NVTX_VERSION;
  attributes.size = NVTX_EVENT_ATTRIB_STRUCT_SIZE;
  attributes.colorType = NVTX_COLOR_ARGB;
  attributes.color = 0xFF00A0B0;
  attributes.payloadType = NVTX_PAYLOAD_TYPE_INT32;
  attributes.payload.iValue = -5;
  attributes.messageType = NVTX_MESSAGE_TYPE_ASCII;
  attributes.message.ascii = "core/attributed";
  nvtxRangePushEx(&attributes);
  nvtxRangePop();
  nvtxRangePop();
  const std::string tid = tid_string();
  const std::vector<Fields> expected = {
      {"push", "<default>", tid, "0", "-", "-", "core/plain"},
      {"push", "<default>", tid, "0", "FF00A0B0", "-", "core/attributed"},
      {"pop", "<default>", tid},
      {"pop", "<default>", tid},
  };
  const auto lines = range_lines(since_start(), tid, "<default>");
  EXPECT_EQ(lines, expected) << "got:\n" << describe(lines) << "want:\n" << describe(expected);
}

// The streams family on a GPU: its streams carry their names and every chunk stage
// is a range with the chunk's bytes, in issue order. Skips without a GPU.
TEST_F(NvtxRanges, StreamsPipelineNamesItsStreamsAndRangesEveryChunkStage) {
  static const hdbench::system::SystemInfo machine = hdbench::system::discover();
  if (!machine.gpu_usable()) GTEST_SKIP() << machine.gpu_unavailable_reason;
  HDBENCH_CUDA_CHECK(cudaSetDevice(0));
  const std::size_t words = 3 * 1024;  // three chunks of 1024 words
  const hdbench::StreamWorkload work(hdbench::HostMemoryKind::pinned, words * 4, 1);
  const hdbench::PipelineShape shape{hdbench::CopyApi::async,       2,     3,
                                     hdbench::IssueOrder::by_stage, false, hdbench::SideLaunch::none};
  const hdbench::Pipeline pipeline(work.buffers(), shape, 1, "streams/nvtx-test");
  pipeline.enqueue();
  HDBENCH_CUDA_CHECK(cudaStreamSynchronize(pipeline.origin()));

  const auto lines = since_start();
  std::vector<Fields> streams;
  for (const Fields& f : lines) {
    if (!f.empty() && f[0] == "stream") streams.push_back(f);
  }
  const std::vector<Fields> expected_streams = {{"stream", "origin"}, {"stream", "stream 0"}, {"stream", "stream 1"}};
  EXPECT_EQ(streams, expected_streams) << describe(streams);

  const std::string tid = tid_string();
  std::vector<Fields> expected;
  for (const char* stage : {"h2d", "kernel", "d2h"}) {  // by_stage: every chunk's stage before the next stage
    for (int chunk = 0; chunk < 3; ++chunk) {
      expected.push_back(push_line(tid, hdbench::kStreamsNvtx, 4096,
                                   "streams/nvtx-test/chunk " + std::to_string(chunk) + "/" + stage));
      expected.push_back(pop_line(tid));
    }
  }
  const auto ranges = range_lines(lines, tid);
  EXPECT_EQ(ranges, expected) << "got:\n" << describe(ranges) << "want:\n" << describe(expected);
}

}  // namespace
