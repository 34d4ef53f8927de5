#include <gtest/gtest.h>
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/cuda.hpp"
#include "core/host_memory.hpp"
#include "core/host_pattern.hpp"
#include "core/system.hpp"
#include "transfer/transfer_axes.hpp"

namespace hdbench {
namespace {

std::uintptr_t page_size() { return static_cast<std::uintptr_t>(::sysconf(_SC_PAGESIZE)); }

bool page_aligned(const void* ptr) { return reinterpret_cast<std::uintptr_t>(ptr) % page_size() == 0; }

bool gpu_usable() {
  static const bool usable = system::discover().gpu_usable();
  return usable;
}

// Writes and reads back every byte.
void expect_writable(void* data, std::size_t bytes) {
  fill_pattern_host(data, bytes, 99);
  EXPECT_EQ(find_pattern_mismatch(data, bytes, 99), std::nullopt);
}

// --- HostMemoryKind names ------------------------------------------------------

TEST(HostMemoryKind, NamesRoundTrip) {
  const std::vector<HostMemoryKind> kinds = all_host_memory_kinds();
  ASSERT_EQ(kinds.size(), 5u);
  const std::vector<std::string> names = {"pageable", "registered", "pinned", "pinned_wc", "mapped"};
  for (std::size_t i = 0; i < kinds.size(); ++i) {
    EXPECT_EQ(std::string(to_string(kinds[i])), names[i]);
    EXPECT_EQ(host_memory_kind_from_string(names[i]), kinds[i]);
  }
}

TEST(HostMemoryKind, UnknownNames) {
  for (std::string_view name :
       {"", "Pinned", "PINNED", "pinned ", " pinned", "wc", "pinned-wc", "unknown", "host", "pageable,pinned"}) {
    EXPECT_EQ(host_memory_kind_from_string(name), std::nullopt) << '"' << name << '"';
  }
  EXPECT_EQ(std::string(to_string(static_cast<HostMemoryKind>(99))), "unknown");
}

TEST(HostMemoryKind, OnlyPageableIsNotDeviceAccessible) {
  for (HostMemoryKind kind : all_host_memory_kinds()) {
    EXPECT_EQ(is_device_accessible(kind), kind != HostMemoryKind::pageable) << to_string(kind);
  }
}

// --- PageableBuffer --------------------------------------------------------------

TEST(PageableBuffer, PageAlignedAndWritable) {
  for (std::size_t bytes :
       {std::size_t{1}, std::size_t{4095}, std::size_t{4096}, std::size_t{10000}, (std::size_t{1} << 20) + 3}) {
    PageableBuffer buffer(bytes);
    ASSERT_NE(buffer.data(), nullptr);
    EXPECT_EQ(buffer.size(), bytes);
    EXPECT_TRUE(page_aligned(buffer.data())) << bytes;
    EXPECT_EQ(buffer.as<unsigned char>(), buffer.data());
    expect_writable(buffer.data(), bytes);
  }
}

TEST(PageableBuffer, ZeroBytesAndDefault) {
  const PageableBuffer empty(0);
  EXPECT_EQ(empty.size(), 0u);
  const PageableBuffer none;
  EXPECT_EQ(none.data(), nullptr);
  EXPECT_EQ(none.size(), 0u);
}

TEST(PageableBuffer, MoveLeavesSourceEmpty) {
  PageableBuffer a(8192);
  fill_pattern_host(a.data(), a.size(), 5);
  void* const original = a.data();

  PageableBuffer b(std::move(a));
  EXPECT_EQ(a.data(), nullptr);  // NOLINT(bugprone-use-after-move): checking the moved-from state
  EXPECT_EQ(a.size(), 0u);
  EXPECT_EQ(b.data(), original);
  EXPECT_EQ(b.size(), 8192u);
  EXPECT_EQ(find_pattern_mismatch(b.data(), b.size(), 5), std::nullopt);

  PageableBuffer c(100);
  c = std::move(b);
  EXPECT_EQ(b.data(), nullptr);  // NOLINT(bugprone-use-after-move)
  EXPECT_EQ(b.size(), 0u);
  EXPECT_EQ(c.data(), original);
  EXPECT_EQ(c.size(), 8192u);

  PageableBuffer d;
  d = std::move(c);
  EXPECT_EQ(c.data(), nullptr);  // NOLINT(bugprone-use-after-move)
  EXPECT_EQ(d.data(), original);
  EXPECT_EQ(find_pattern_mismatch(d.data(), d.size(), 5), std::nullopt);
}

// --- HostBuffer ------------------------------------------------------------------

TEST(HostBuffer, PageableWorksWithoutAGpu) {
  HostBuffer buffer(HostMemoryKind::pageable, 10000);
  ASSERT_NE(buffer.data(), nullptr);
  EXPECT_EQ(buffer.size(), 10000u);
  EXPECT_EQ(buffer.kind(), HostMemoryKind::pageable);
  EXPECT_EQ(buffer.device_pointer(), nullptr);
  EXPECT_TRUE(page_aligned(buffer.data()));
  expect_writable(buffer.data(), buffer.size());
}

TEST(HostBuffer, DefaultIsEmpty) {
  const HostBuffer buffer;
  EXPECT_EQ(buffer.data(), nullptr);
  EXPECT_EQ(buffer.device_pointer(), nullptr);
  EXPECT_EQ(buffer.size(), 0u);
}

TEST(HostBuffer, MoveLeavesSourceEmpty) {
  HostBuffer a(HostMemoryKind::pageable, 4096);
  void* const original = a.data();
  HostBuffer b(std::move(a));
  EXPECT_EQ(a.data(), nullptr);  // NOLINT(bugprone-use-after-move)
  EXPECT_EQ(a.size(), 0u);
  EXPECT_EQ(a.device_pointer(), nullptr);
  EXPECT_EQ(b.data(), original);
  EXPECT_EQ(b.size(), 4096u);
  EXPECT_EQ(b.kind(), HostMemoryKind::pageable);

  HostBuffer c(HostMemoryKind::pageable, 16);
  c = std::move(b);
  EXPECT_EQ(b.data(), nullptr);  // NOLINT(bugprone-use-after-move)
  EXPECT_EQ(b.size(), 0u);
  EXPECT_EQ(c.data(), original);
  EXPECT_EQ(c.size(), 4096u);
  expect_writable(c.data(), c.size());
}

// What a page-locked allocation call is named in the error.
const char* allocation_call(HostMemoryKind kind) {
  switch (kind) {
    case HostMemoryKind::registered:
      return "cudaHostRegister";
    case HostMemoryKind::pinned:
      return "cudaMallocHost";
    case HostMemoryKind::pinned_wc:
    case HostMemoryKind::mapped:
      return "cudaHostAlloc";
    case HostMemoryKind::pageable:
      break;
  }
  return "";
}

TEST(HostBuffer, PinnedNeedsAGpuAndSaysSo) {
  if (gpu_usable()) {
    HostBuffer buffer(HostMemoryKind::pinned, 4096);
    ASSERT_NE(buffer.data(), nullptr);
    EXPECT_NE(buffer.device_pointer(), nullptr);
    EXPECT_EQ(buffer.kind(), HostMemoryKind::pinned);
    expect_writable(buffer.data(), buffer.size());
    return;
  }
  try {
    HostBuffer buffer(HostMemoryKind::pinned, 4096);
    FAIL() << "pinned allocation succeeded without a usable GPU";
  } catch (const CudaError& error) {
    const std::string message = error.what();
    EXPECT_NE(error.code(), cudaSuccess);
    EXPECT_NE(message.find("cudaMallocHost"), std::string::npos) << message;
    EXPECT_NE(message.find("what to do"), std::string::npos) << message;
    EXPECT_NE(message.find(cudaGetErrorName(error.code())), std::string::npos) << message;
  }
}

TEST(HostBuffer, EveryPageLockedKindWithOrWithoutAGpu) {
  for (HostMemoryKind kind : all_host_memory_kinds()) {
    if (kind == HostMemoryKind::pageable) continue;
    SCOPED_TRACE(to_string(kind));
    if (gpu_usable()) {
      HostBuffer buffer(kind, 8192);
      ASSERT_NE(buffer.data(), nullptr);
      EXPECT_NE(buffer.device_pointer(), nullptr);
      EXPECT_EQ(buffer.size(), 8192u);
      if (kind != HostMemoryKind::pinned_wc) expect_writable(buffer.data(), buffer.size());
      HostBuffer moved(std::move(buffer));
      EXPECT_EQ(buffer.device_pointer(), nullptr);  // NOLINT(bugprone-use-after-move)
      EXPECT_NE(moved.device_pointer(), nullptr);
      continue;
    }
    try {
      HostBuffer buffer(kind, 8192);
      ADD_FAILURE() << "allocation succeeded without a usable GPU";
    } catch (const CudaError& error) {
      const std::string message = error.what();
      EXPECT_NE(message.find(allocation_call(kind)), std::string::npos) << message;
      EXPECT_NE(message.find("what to do"), std::string::npos) << message;
    }
  }
}

// --- axes -----------------------------------------------------------------------

TEST(Axes, EngineUsesKindTable) {
  using K = HostMemoryKind;
  EXPECT_TRUE(engine_uses_kind(Engine::copy, K::pageable));
  EXPECT_TRUE(engine_uses_kind(Engine::copy, K::registered));
  EXPECT_TRUE(engine_uses_kind(Engine::copy, K::pinned));
  EXPECT_TRUE(engine_uses_kind(Engine::copy, K::pinned_wc));
  EXPECT_FALSE(engine_uses_kind(Engine::copy, K::mapped));

  EXPECT_FALSE(engine_uses_kind(Engine::sm, K::pageable));
  EXPECT_TRUE(engine_uses_kind(Engine::sm, K::registered));
  EXPECT_FALSE(engine_uses_kind(Engine::sm, K::pinned));
  EXPECT_TRUE(engine_uses_kind(Engine::sm, K::pinned_wc));
  EXPECT_TRUE(engine_uses_kind(Engine::sm, K::mapped));
}

TEST(Axes, SmEngineUsesOnlyDeviceAccessibleKinds) {
  for (HostMemoryKind kind : all_host_memory_kinds()) {
    if (engine_uses_kind(Engine::sm, kind)) {
      EXPECT_TRUE(is_device_accessible(kind)) << to_string(kind);
    }
  }
  // Every kind is measured by at least one engine.
  for (HostMemoryKind kind : all_host_memory_kinds()) {
    EXPECT_TRUE(engine_uses_kind(Engine::copy, kind) || engine_uses_kind(Engine::sm, kind)) << to_string(kind);
  }
}

TEST(Axes, DirectionNamesRoundTrip) {
  const std::vector<Direction> directions = all_directions();
  ASSERT_EQ(directions.size(), 5u);
  EXPECT_EQ(std::string(to_string(Direction::h2d)), "h2d");
  EXPECT_EQ(std::string(to_string(Direction::d2h)), "d2h");
  EXPECT_EQ(std::string(to_string(Direction::bidir)), "bidir");
  EXPECT_EQ(std::string(to_string(Direction::all_to_host)), "all_to_host");
  EXPECT_EQ(std::string(to_string(Direction::host_to_all)), "host_to_all");
  for (Direction d : directions) EXPECT_EQ(direction_from_string(to_string(d)), d);
  for (std::string_view name : {"", "H2D", "h2d ", "both", "d2d", "unknown"}) {
    EXPECT_EQ(direction_from_string(name), std::nullopt) << '"' << name << '"';
  }
}

TEST(Axes, EngineNamesRoundTrip) {
  const std::vector<Engine> engines = all_engines();
  ASSERT_EQ(engines.size(), 2u);
  EXPECT_EQ(std::string(to_string(Engine::copy)), "copy");
  EXPECT_EQ(std::string(to_string(Engine::sm)), "sm");
  for (Engine e : engines) EXPECT_EQ(engine_from_string(to_string(e)), e);
  for (std::string_view name : {"", "SM", "dma", "copy,sm", "kernel"}) {
    EXPECT_EQ(engine_from_string(name), std::nullopt) << '"' << name << '"';
  }
}

}  // namespace
}  // namespace hdbench
