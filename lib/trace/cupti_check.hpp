// The check every CUPTI call of the trace area makes (the recorder's and the
// profiler's API callbacks). Include only where HDBENCH_HAVE_CUPTI is defined.
#pragma once

#include <cupti.h>

namespace hdbench::trace {

// Throws TraceUnavailable (trace_recorder.hpp) naming `call`, CUPTI's reason and what to
// do, unless `result` is CUPTI_SUCCESS.
void check_cupti(CUptiResult result, const char* call);

}  // namespace hdbench::trace
