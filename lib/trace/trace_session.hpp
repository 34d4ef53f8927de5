// --hdbench_trace for one run: starts the CUPTI recorder when it can and says why
// when it cannot (the run goes on without a trace). The recorder hands its records to
// a TraceStream as CUPTI completes its buffers, which streams them into the Chrome
// trace within each benchmark's budget and analyses each benchmark as it ends; at the
// end the trace is renamed in place and the per-benchmark GPU activity rows go into
// the report's `derived` section.
#pragma once

#include <memory>
#include <nlohmann/json.hpp>
#include <string>

#include "core/suite.hpp"
#include "core/system.hpp"
#include "trace/trace_options.hpp"
#include "trace/trace_recorder.hpp"
#include "trace/trace_stream.hpp"

namespace hdbench::trace {

class TraceSession {
 public:
  // Does nothing unless options.path is set. Each benchmark's GPU activity is read on
  // its params.device; `device` is the GPU of those without one.
  TraceSession(const TraceOptions& options, int device, const system::SystemInfo& system, Suite& suite);
  ~TraceSession();
  TraceSession(const TraceSession&) = delete;
  TraceSession& operator=(const TraceSession&) = delete;

  // Stops recording and writes the trace; adds derived["gpu_activity"]. Returns what
  // goes in context.hdbench.trace: whether it was recorded, where, or why not.
  nlohmann::json finish(const nlohmann::json& benchmarks, nlohmann::json& derived);

 private:
  const TraceOptions& options_;
  int device_;
  const system::SystemInfo& system_;
  Suite& suite_;
  std::unique_ptr<TraceStream> stream_;  // outlives the recorder, which writes into it
  std::unique_ptr<Recorder> recorder_;
  std::string unavailable_;  // why no trace was recorded
};

}  // namespace hdbench::trace
