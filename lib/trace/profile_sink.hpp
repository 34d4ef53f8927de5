// Where hdbench_profile's recorder hands its records (libhdbench_inject.so): the records
// file, records-<pid>.jsonl (docs/profiling.md's format), and up to a size, the Chrome
// trace, trace-<pid>.json.
//
// The program pays for none of the formatting or writing: consume() only moves a batch
// into a queue, on whatever thread hands it over (a program's thread, CUPTI's buffer
// thread); a writer thread of the sink's own formats the JSON lines, writes and flushes
// them batch by batch (a killed process leaves every whole line it wrote) and streams
// the trace. finish() drains the queue, joins the thread and writes the end line.
//
// Memory is bounded: when `queue_limit` records are waiting, a hand-over waits up to
// `max_wait` for the writer to make room (the producer blocks, briefly); if the writer
// is still behind, the batch is dropped and counted (end line: "writer_dropped", also
// included in "cupti_dropped", which counts every record lost while recording). At
// most twice the limit is held: the records waiting and those being written.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <deque>
#include <filesystem>
#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "trace/trace_records.hpp"

namespace hdbench::trace {

class ChromeTraceWriter;

// A record as its line in the records file.
nlohmann::json profile_line(const Record& r);

// What the injection library records ($HDBENCH_PROFILE_RECORD; all of it by default): the
// GPU's work (CUPTI activity records), the kept runtime and driver calls (callbacks), the
// program's NVTX ranges. Turning parts off finds what each costs the program (the
// recording slowed an H100 host's tutorial loop 1.20x, cause unknown): a profile made so
// prices nothing right, it only times.
struct RecordParts {
  bool gpu = true, api = true, nvtx = true;
};
// "gpu,api,nvtx" or any subset, in any order; "none" (the library loaded, nothing
// recorded); empty or unset: all. Anything else: std::nullopt and `error` says why.
std::optional<RecordParts> parse_record_parts(const char* text, std::string& error);
// The parts as parse_record_parts reads them ("gpu,api,nvtx", "none").
std::string to_string(const RecordParts& parts);

struct ProfileSinkLimits {
  std::size_t budget = 2'000'000;          // records kept; the rest are counted ("over_budget")
  double trace_megabytes = 200.0;          // the trace stops taking records at this much text
  std::size_t queue_limit = 1u << 18;      // records waiting for the writer (~30-60 MB of records)
  std::chrono::milliseconds max_wait{50};  // how long a hand-over waits for room
};

// What the writer did (after finish(), or for a test).
struct ProfileSinkCounts {
  std::size_t kept = 0, over_budget = 0, beyond_trace = 0, writer_dropped = 0, after_finish = 0;
};

class ProfileSink final : public RecordSink {
 public:
  // Creates `dir`/records-<pid>.jsonl, writes `first_line` (the process line) and starts
  // the writer thread; throws std::runtime_error when the file cannot be created.
  ProfileSink(const std::filesystem::path& dir, const nlohmann::json& first_line, const ProfileSinkLimits& limits = {});
  // Without finish(): stops the writer and leaves the file without an end line (and
  // no trace: its temp file is removed).
  ~ProfileSink() override;
  ProfileSink(const ProfileSink&) = delete;
  ProfileSink& operator=(const ProfileSink&) = delete;

  // Opens the trace (its failure is kept for the end line; the records go on).
  void started(std::uint64_t origin_ns) override;
  // Queues the records (takes them; `records` is left empty). Ignored after finish()
  // and in a forked child (the writer thread is its parent's).
  void consume(std::vector<Record>& records) override;
  // Writes what is queued, the trace's end and the end line (`extra`'s fields added to
  // it); closes the file. Once; from a thread other than the writer's.
  void finish(const TraceMetadata& metadata, std::size_t cupti_dropped,
              const nlohmann::json& extra = nlohmann::json::object());

  pid_t pid() const noexcept { return pid_; }
  const std::filesystem::path& records_path() const noexcept { return records_path_; }
  ProfileSinkCounts counts() const;

 private:
  void run_writer() noexcept;
  void write_batches(std::deque<std::vector<Record>>& batches);
  void write_text(const std::string& text);
  void stop_writer();

  const pid_t pid_;
  const std::filesystem::path records_path_, trace_path_;
  const ProfileSinkLimits limits_;
  const std::uint64_t trace_bytes_limit_;

  // The queue, shared by the producers and the writer.
  mutable std::mutex mutex_;
  std::condition_variable work_, room_;
  std::deque<std::vector<Record>> queue_;
  std::size_t queued_ = 0;
  bool stopping_ = false, finished_ = false;
  std::size_t writer_dropped_ = 0, after_finish_ = 0;

  // The writer's: the file and the trace (started() and finish() take write_mutex_).
  mutable std::mutex write_mutex_;
  std::FILE* file_ = nullptr;
  std::unique_ptr<ChromeTraceWriter> trace_;
  std::string trace_error_;
  std::string text_;          // one batch's lines
  std::vector<Record> kept_;  // one batch's kept records, for the trace
  std::size_t kept_count_ = 0, over_budget_ = 0, beyond_trace_ = 0;

  std::thread writer_;  // last: started once everything above is in place
};

}  // namespace hdbench::trace
