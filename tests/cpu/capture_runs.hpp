// A Google Benchmark reporter that keeps every run, for tests that run registered
// benchmarks and read what was reported.
#pragma once

#include <benchmark/benchmark.h>

#include <vector>

namespace hdbench::testing {

class CaptureRuns : public benchmark::BenchmarkReporter {
 public:
  bool ReportContext(const Context&) override { return true; }
  void ReportRuns(const std::vector<Run>& runs) override {
    this->runs.insert(this->runs.end(), runs.begin(), runs.end());
  }
  std::vector<Run> runs;
};

}  // namespace hdbench::testing
