#include "trace/trace_session.hpp"

#include <fmt/format.h>

#include "core/report.hpp"

namespace hdbench::trace {

TraceSession::TraceSession(const TraceOptions& options, int device, const system::SystemInfo& system, Suite& suite)
    : options_(options), device_(device), system_(system), suite_(suite) {
  if (options_.path.empty()) return;
  if (!system_.gpu_usable()) {
    unavailable_ = system_.gpu_unavailable_reason;
  } else {
    try {
      stream_ = std::make_unique<TraceStream>(options_.path, device_, options_.budget);
      recorder_ = std::make_unique<Recorder>(options_.api, stream_.get());
      Recorder* recorder = recorder_.get();
      TraceStream* stream = stream_.get();
      suite_.set_trace_clock([recorder] { return recorder->now_ns(); });
      // Ctrl-C then winds the run down: the benchmarks not yet run are skipped, and
      // the report and the trace are written as at a normal end.
      defer_first_interrupt();
      // Between benchmark calls (outside their timed regions): at each end, CUPTI's
      // buffers are forced out so the benchmark's records are all in before the
      // next one starts and it is analysed.
      const Suite* suite = &suite_;
      suite_.set_window_observer([recorder, stream, suite](const std::string& name, std::uint64_t ns, bool started) {
        try {
          if (started) {
            const nlohmann::json* params = suite->params().find(name);  // each GPU's benchmarks analysed on it
            stream->window_started(name, ns, params ? params->value("device", -1) : -1);
          } else {
            recorder->flush();
            stream->window_ended(name, ns);
          }
        } catch (const std::exception& error) {
          fmt::print(stderr, "hdbench: --hdbench_trace: {}\n", error.what());
        }
      });
      return;
    } catch (const std::exception& error) {
      recorder_.reset();
      stream_.reset();
      unavailable_ = error.what();
    }
  }
  fmt::print(stderr, "hdbench: --hdbench_trace: no trace will be recorded: {}\n", unavailable_);
}

TraceSession::~TraceSession() {
  suite_.set_window_observer({});
  suite_.set_trace_clock({});
}

nlohmann::json TraceSession::finish(const nlohmann::json& benchmarks, nlohmann::json& derived) {
  if (options_.path.empty()) return nullptr;
  if (!recorder_) return {{"recorded", false}, {"reason", unavailable_}};
  suite_.set_window_observer({});
  suite_.set_trace_clock({});
  recorder_->finish();
  std::vector<std::string> gpu_names;
  for (const auto& gpu : system_.gpus) gpu_names.push_back(gpu.name);
  const TraceMetadata metadata = recorder_->metadata(system_.host.hostname, gpu_names);
  if (const std::string error = recorder_->sink_error(); !error.empty()) {
    return {{"recorded", false}, {"reason", "writing the trace failed: " + error}};
  }
  nlohmann::json rows;
  try {
    rows = stream_->finish(metadata, benchmarks);
  } catch (const std::exception& error) {
    return {{"recorded", false}, {"reason", std::string("writing the trace failed: ") + error.what()}};
  }
  if (!rows.empty()) derived["gpu_activity"] = rows;
  const TraceStreamTotals totals = stream_->totals();
  return {{"recorded", true},
          {"path", options_.path},
          {"records", totals.kept},
          {"records_dropped_over_budget", totals.dropped},
          {"budget_per_benchmark", options_.budget},
          {"dropped_records", recorder_->dropped_records()},
          {"api_calls", options_.api}};
}

}  // namespace hdbench::trace
