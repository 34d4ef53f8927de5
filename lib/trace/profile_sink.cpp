#include "trace/profile_sink.hpp"

#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <span>
#include <stdexcept>
#include <string_view>
#include <utility>

#include "trace/trace_writer.hpp"

namespace hdbench::trace {

namespace fs = std::filesystem;

nlohmann::json profile_line(const Record& r) {
  nlohmann::json j = {{"start_ns", r.start_ns}, {"end_ns", r.end_ns}};
  switch (r.kind) {
    case RecordKind::memcpy:
      j["type"] = "copy";
      j["direction"] = r.name;
      j["src"] = to_string(r.src);
      j["dst"] = to_string(r.dst);
      j["bytes"] = r.bytes;
      j["async_api"] = r.async_api;
      break;
    case RecordKind::memset:
      j["type"] = "memset";
      j["bytes"] = r.bytes;
      break;
    case RecordKind::kernel:
      j["type"] = "kernel";
      j["name"] = r.name;
      break;
    case RecordKind::api:
      j["type"] = "api";
      j["name"] = r.name;
      j["thread"] = r.thread;
      break;
    case RecordKind::range:
      j["type"] = "range";
      j["name"] = r.name;
      j["thread"] = r.thread;
      break;
  }
  if (is_gpu_record(r.kind)) {
    j["device"] = r.device;
    j["stream"] = r.stream;
  }
  if (r.kind != RecordKind::range) j["correlation"] = r.correlation;
  return j;
}

std::optional<RecordParts> parse_record_parts(const char* text, std::string& error) {
  if (text == nullptr || *text == '\0') return RecordParts{};
  const std::string_view all(text);
  if (all == "none") return RecordParts{false, false, false};
  RecordParts parts{false, false, false};
  std::size_t start = 0;
  while (start <= all.size()) {
    const std::size_t comma = std::min(all.find(',', start), all.size());
    const std::string_view part = all.substr(start, comma - start);
    if (part == "gpu") {
      parts.gpu = true;
    } else if (part == "api") {
      parts.api = true;
    } else if (part == "nvtx") {
      parts.nvtx = true;
    } else {
      error = fmt::format(
          "HDBENCH_PROFILE_RECORD={}: '{}' is not a part; what to do: name some of gpu, api, nvtx "
          "(comma-separated), or none",
          all, part);
      return std::nullopt;
    }
    start = comma + 1;
  }
  return parts;
}

std::string to_string(const RecordParts& parts) {
  std::string out;
  for (const auto& [on, name] :
       {std::pair{parts.gpu, "gpu"}, std::pair{parts.api, "api"}, std::pair{parts.nvtx, "nvtx"}}) {
    if (on) out += out.empty() ? name : fmt::format(",{}", name);
  }
  return out.empty() ? "none" : out;
}

namespace {

void append_line(std::string& text, const nlohmann::json& line) {
  text += line.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  text += '\n';
}

}  // namespace

ProfileSink::ProfileSink(const fs::path& dir, const nlohmann::json& first_line, const ProfileSinkLimits& limits)
    : pid_(::getpid()),
      records_path_(dir / fmt::format("records-{}.jsonl", pid_)),
      trace_path_(dir / fmt::format("trace-{}.json", pid_)),
      limits_(limits),
      trace_bytes_limit_(static_cast<std::uint64_t>(limits.trace_megabytes * 1e6)) {
  file_ = std::fopen(records_path_.c_str(), "we");
  if (file_ == nullptr) throw std::runtime_error(fmt::format("cannot write {}", records_path_.string()));
  std::string text;
  append_line(text, first_line);
  write_text(text);
  try {
    writer_ = std::thread([this] { run_writer(); });
  } catch (...) {
    std::fclose(file_);
    throw;
  }
}

ProfileSink::~ProfileSink() {
  stop_writer();
  if (file_ != nullptr) std::fclose(file_);
}

void ProfileSink::stop_writer() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
    finished_ = true;  // a hand-over from now on is ignored
  }
  work_.notify_all();
  room_.notify_all();
  if (writer_.joinable()) writer_.join();
}

void ProfileSink::started(std::uint64_t origin_ns) {
  std::lock_guard lock(write_mutex_);
  try {
    trace_ = std::make_unique<ChromeTraceWriter>(trace_path_, origin_ns);
  } catch (const std::exception& error) {
    trace_error_ = error.what();  // the records still go to the file
  }
}

void ProfileSink::consume(std::vector<Record>& records) {
  if (records.empty()) return;
  // A child forked without exec inherits the recorder but not the writer thread, and
  // maybe a lock held at the fork: it hands over nothing (its parent's file is not its own).
  if (::getpid() != pid_) {
    records.clear();
    return;
  }
  const std::size_t n = records.size();
  std::unique_lock lock(mutex_);
  const auto has_room = [&] { return finished_ || queued_ == 0 || queued_ + n <= limits_.queue_limit; };
  if (!has_room() && !room_.wait_for(lock, limits_.max_wait, has_room)) {
    writer_dropped_ += n;  // the writer is behind by the whole queue: drop rather than stall the program
    records.clear();
    return;
  }
  if (finished_) {
    after_finish_ += n;
    records.clear();
    return;
  }
  queue_.push_back(std::move(records));
  records.clear();
  queued_ += n;
  lock.unlock();
  work_.notify_one();
}

void ProfileSink::run_writer() noexcept {
  std::deque<std::vector<Record>> batches;
  std::unique_lock lock(mutex_);
  for (;;) {
    work_.wait(lock, [&] { return stopping_ || !queue_.empty(); });
    if (queue_.empty()) break;  // stopping, and everything is written
    batches.swap(queue_);
    queued_ = 0;
    lock.unlock();
    room_.notify_all();
    try {
      std::lock_guard write_lock(write_mutex_);
      write_batches(batches);
    } catch (...) {
      // Out of memory while formatting: these batches are lost; the writer goes on.
    }
    batches.clear();
    lock.lock();
  }
}

void ProfileSink::write_text(const std::string& text) {
  if (file_ == nullptr || text.empty()) return;
  std::fwrite(text.data(), 1, text.size(), file_);
  std::fflush(file_);  // whole lines reach the file batch by batch: a killed process leaves them
}

// Under write_mutex_, on the writer thread.
void ProfileSink::write_batches(std::deque<std::vector<Record>>& batches) {
  for (std::vector<Record>& batch : batches) {
    text_.clear();
    kept_.clear();
    for (Record& r : batch) {
      if (r.kind == RecordKind::api && !kept_api_call(r.name) && !kept_driver_call(r.name)) continue;
      if (kept_count_ >= limits_.budget) {
        ++over_budget_;
        continue;
      }
      ++kept_count_;
      append_line(text_, profile_line(r));
      kept_.push_back(std::move(r));
    }
    write_text(text_);
    if (!trace_ || kept_.empty()) continue;
    if (trace_->bytes_written() >= trace_bytes_limit_) {
      beyond_trace_ += kept_.size();  // analysed, not drawn: the trace is full
      continue;
    }
    try {
      trace_->write(std::span<const Record>(kept_));
    } catch (const std::exception& error) {
      trace_error_ = error.what();  // disk full: no trace, the records file goes on
      trace_.reset();
    }
  }
}

void ProfileSink::finish(const TraceMetadata& metadata, std::size_t cupti_dropped, const nlohmann::json& extra) {
  {
    std::lock_guard lock(mutex_);
    if (finished_) return;
  }
  stop_writer();  // every queued batch is written before the thread ends
  std::lock_guard write_lock(write_mutex_);
  if (file_ == nullptr) return;
  std::size_t writer_dropped = 0;
  {
    std::lock_guard lock(mutex_);
    writer_dropped = writer_dropped_;
  }
  std::string trace_name;
  if (trace_) {
    try {
      trace_->close(metadata, {{"records", kept_count_},
                               {"records_over_budget", over_budget_},
                               {"records_beyond_trace_size", beyond_trace_},
                               {"trace_size_limit_bytes", trace_bytes_limit_}});
      trace_name = trace_path_.filename().string();
    } catch (const std::exception& error) {
      trace_error_ = error.what();
    }
  }
  nlohmann::json end = {{"type", "end"},
                        {"records", kept_count_},
                        {"over_budget", over_budget_},
                        {"beyond_trace_size", beyond_trace_},
                        {"cupti_dropped", cupti_dropped + writer_dropped},
                        {"writer_dropped", writer_dropped},
                        {"gpus", metadata.gpu_names},
                        {"trace", trace_name.empty() ? nlohmann::json(nullptr) : nlohmann::json(trace_name)}};
  if (!trace_error_.empty()) end["trace_error"] = trace_error_;
  if (extra.is_object()) end.update(extra);
  std::string text;
  append_line(text, end);
  write_text(text);
  std::fclose(file_);
  file_ = nullptr;
}

ProfileSinkCounts ProfileSink::counts() const {
  std::lock_guard write_lock(write_mutex_);  // the writer's counts are settled between batches
  std::lock_guard lock(mutex_);
  return {kept_count_, over_budget_, beyond_trace_, writer_dropped_, after_finish_};
}

}  // namespace hdbench::trace
