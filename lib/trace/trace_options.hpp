// --hdbench_trace: a Chrome trace of CUPTI activity, and whether it records every
// CUDA runtime call too.
#pragma once

#include <string>

#include "core/flags.hpp"

namespace hdbench::trace {

struct TraceOptions {
  std::string path;  // empty: no trace
  bool api = false;  // also record every CUDA runtime call
};

void declare_trace_flags(FlagParser& flags, TraceOptions& options);

}  // namespace hdbench::trace
