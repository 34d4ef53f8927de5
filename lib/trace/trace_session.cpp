#include "trace/trace_session.hpp"

#include <fmt/format.h>

#include "trace/trace_report.hpp"
#include "trace/trace_writer.hpp"

namespace hdbench::trace {

TraceSession::TraceSession(const TraceOptions& options, int device, const system::SystemInfo& system, Suite& suite)
    : options_(options), device_(device), system_(system), suite_(suite) {
  if (options_.path.empty()) return;
  if (!system_.gpu_usable()) {
    unavailable_ = system_.gpu_unavailable_reason;
  } else {
    try {
      recorder_ = std::make_unique<Recorder>(options_.api);
      Recorder* recorder = recorder_.get();
      suite_.set_trace_clock([recorder] { return recorder->now_ns(); });
      return;
    } catch (const TraceUnavailable& error) {
      unavailable_ = error.what();
    }
  }
  fmt::print(stderr, "hdbench: --hdbench_trace: no trace will be recorded: {}\n", unavailable_);
}

TraceSession::~TraceSession() { suite_.set_trace_clock({}); }

nlohmann::json TraceSession::finish(const nlohmann::json& benchmarks, nlohmann::json& derived) {
  if (options_.path.empty()) return nullptr;
  if (!recorder_) return {{"recorded", false}, {"reason", unavailable_}};
  suite_.set_trace_clock({});
  const std::vector<Record> records = recorder_->finish();
  std::vector<std::string> gpu_names;
  for (const auto& gpu : system_.gpus) gpu_names.push_back(gpu.name);
  write_chrome_trace(options_.path, records, recorder_->metadata(system_.host.hostname, gpu_names));
  const nlohmann::json rows = gpu_activity_rows(records, suite_.windows(), device_, benchmarks);
  if (!rows.empty()) derived["gpu_activity"] = rows;
  return {{"recorded", true},
          {"path", options_.path},
          {"records", records.size()},
          {"dropped_records", recorder_->dropped_records()},
          {"api_calls", options_.api}};
}

}  // namespace hdbench::trace
