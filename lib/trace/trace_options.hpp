// --hdbench_trace: a Chrome trace of CUPTI activity, and whether it records every
// CUDA runtime call too.
#pragma once

#include <cstddef>
#include <string>

#include "core/flags.hpp"

namespace hdbench::trace {

// Records a benchmark keeps before it samples (see trace_stream.hpp). A default run
// registers ~1,200 benchmarks and an event takes ~190 bytes of JSON, so a default
// trace stays under ~200 MB (~185 MB) even when every benchmark fills its budget.
inline constexpr std::size_t kDefaultTraceBudget = 800;

struct TraceOptions {
  std::string path;                          // empty: no trace; ".gz": gzip-compressed
  bool api = false;                          // also record every CUDA runtime call
  std::size_t budget = kDefaultTraceBudget;  // records per benchmark
};

void declare_trace_flags(FlagParser& flags, TraceOptions& options);

}  // namespace hdbench::trace
