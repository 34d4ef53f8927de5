// Reading the log the NVTX capture injection library (capture_injection.cpp) writes,
// for the NVTX tests. ctest sets
//   NVTX_INJECTION64_PATH=<build>/tests/libnvtx_capture.so
//   HDBENCH_NVTX_CAPTURE=<build>/tests/nvtx_tests_capture.log
// The log is appended to by the whole process (and by earlier runs), so every
// test remembers where the file ended before it acted and reads only what
// follows, keeping the lines of its own thread(s).
#pragma once

#include <gtest/gtest.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "core/nvtx.hpp"

namespace hdbench::nvtx_capture {

using Fields = std::vector<std::string>;

inline const char* capture_path() {
  const char* path = std::getenv("HDBENCH_NVTX_CAPTURE");
  return path != nullptr && *path != '\0' ? path : nullptr;
}

inline std::uintmax_t log_size() {
  std::error_code error;
  const auto size = std::filesystem::file_size(capture_path(), error);
  return error ? 0 : size;
}

// Lines appended since `offset`, split on tabs.
inline std::vector<Fields> lines_since(std::uintmax_t offset) {
  std::ifstream in(capture_path(), std::ios::binary);
  in.seekg(static_cast<std::streamoff>(offset));
  std::vector<Fields> lines;
  std::string line;
  while (std::getline(in, line)) {
    Fields fields;
    std::string field;
    std::istringstream split(line);
    while (std::getline(split, field, '\t')) fields.push_back(field);
    if (!line.empty() && line.back() == '\t') fields.emplace_back();
    lines.push_back(std::move(fields));
  }
  return lines;
}

inline std::string tid_string() { return std::to_string(::syscall(SYS_gettid)); }

inline std::string hex_color(std::uint32_t argb) {
  char text[16];
  std::snprintf(text, sizeof text, "%08X", static_cast<unsigned>(argb));
  return text;
}

inline std::string category_id(const nvtx::Category& category) { return std::to_string(category.id()); }

inline Fields push_line(const std::string& tid, const nvtx::Category& category, std::uint64_t bytes,
                        const std::string& name) {
  return {"push", nvtx::kDomainName, tid, category_id(category), hex_color(category.argb), std::to_string(bytes), name};
}

inline Fields pop_line(const std::string& tid) { return {"pop", nvtx::kDomainName, tid}; }

// push/pop lines of `domain` on thread `tid`, in order.
inline std::vector<Fields> range_lines(const std::vector<Fields>& lines, const std::string& tid,
                                       const std::string& domain = nvtx::kDomainName) {
  std::vector<Fields> kept;
  for (const Fields& f : lines) {
    if (f.size() >= 3 && (f[0] == "push" || f[0] == "pop") && f[1] == domain && f[2] == tid) {
      kept.push_back(f);
    }
  }
  return kept;
}

inline std::string describe(const std::vector<Fields>& lines) {
  std::string text;
  for (const Fields& f : lines) {
    for (std::size_t i = 0; i < f.size(); ++i) text += (i == 0 ? "" : " | ") + f[i];
    text += '\n';
  }
  return text;
}

class NvtxRanges : public ::testing::Test {
 protected:
  void SetUp() override {
    if (capture_path() == nullptr) {
      GTEST_SKIP() << "HDBENCH_NVTX_CAPTURE is unset. Run through ctest (-R nvtx_tests), or set "
                      "NVTX_INJECTION64_PATH=<build>/tests/libnvtx_capture.so and "
                      "HDBENCH_NVTX_CAPTURE=<log file> by hand.";
    }
    const char* injection = std::getenv("NVTX_INJECTION64_PATH");
    ASSERT_TRUE(injection != nullptr && *injection != '\0')
        << "HDBENCH_NVTX_CAPTURE is set but NVTX_INJECTION64_PATH is not: nothing would be "
           "recorded. Point it at libnvtx_capture.so.";
    start_ = log_size();
  }

  std::vector<Fields> since_start() const { return lines_since(start_); }

  std::uintmax_t start_ = 0;
};

}  // namespace hdbench::nvtx_capture
