// CUPTI records as a Chrome Trace Event file, the JSON that the Perfetto UI and
// chrome://tracing open: one process per GPU with a track per stream, one process
// for the host with a track per thread, every record a complete ("X") event.
//
// The file is streamed: records go in by batches (a CUPTI buffer, a run of NVTX
// ranges) and leave as text at once, so memory does not grow with the run. A name
// ending in ".gz" is gzip-compressed (zlib, level 1: fast enough to keep up). The
// file is written beside its destination as a temp file and renamed over it by
// close(): readers see the old file, the whole new one, or none, never a torn one.
//
// Rules the writer applies, so that any record list gives a file Perfetto accepts:
// - Times are microseconds (ns exact, three decimals) from metadata.origin_ns. A
//   record that ends before the origin is dropped; one that starts before it and ends
//   after is cut to start at the origin. A record with end < start has zero duration.
// - A host thread has two tracks: its NVTX ranges, and its CUDA API calls on
//   "<thread> (CUDA API)", since an API call may cross a range's edge in timestamps.
// - Perfetto drops X events on one track that overlap without nesting. Within a batch
//   each track is sorted by (start asc, end desc), and an event that starts inside
//   another but ends after it (clock jitter, skew between streams' timestamps) has its
//   end clamped to the enclosing event's end; its args then carry "trimmed_us". The
//   open events carry over to the next batch. A record older than its track's last
//   written start (it came in a later batch) is written as it is and counted
//   ("out_of_order"): NVTX ranges end outer-last, so these enclose what came before.
// - Process and thread names (metadata "M" events) are written at the end, when every
//   track is known. Counts of dropped, trimmed and out-of-order records are in
//   otherData, beside the host, GPUs and origin, and whatever the caller adds.
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <span>
#include <string>
#include <vector>

#include "trace/trace_records.hpp"

namespace hdbench::trace {

struct TraceWriterStats {
  std::size_t events = 0;                 // X events written
  std::size_t dropped_before_origin = 0;  // records that ended before the origin
  std::size_t trimmed_to_nest = 0;
  std::size_t out_of_order = 0;
};

class ChromeTraceWriter {
 public:
  // Streams into a temp file beside `path` (gzip when it ends in ".gz"). Throws
  // std::runtime_error when it cannot be created.
  ChromeTraceWriter(const std::filesystem::path& path, std::uint64_t origin_ns);
  // Streams into `text` (for tests and to_chrome_trace); close() leaves it whole.
  ChromeTraceWriter(std::string& text, std::uint64_t origin_ns);
  // Removes the temp file unless close() renamed it.
  ~ChromeTraceWriter();
  ChromeTraceWriter(const ChromeTraceWriter&) = delete;
  ChromeTraceWriter& operator=(const ChromeTraceWriter&) = delete;

  void write(std::span<const Record> records);
  // Writes the names and otherData (`metadata`'s host, GPUs and names, plus `extra`),
  // ends the JSON, flushes it to disk and renames the temp file over the path.
  void close(const TraceMetadata& metadata, const nlohmann::json& extra = nlohmann::json::object());
  const TraceWriterStats& stats() const noexcept { return stats_; }
  // Bytes of text written so far (before compression).
  std::uint64_t bytes_written() const noexcept { return bytes_; }

  class Output;  // where the text goes: a string, a file, a gzip file

 private:
  struct Track {
    int pid = 0, tid = 0;
    std::uint64_t last_start = 0;
    std::vector<std::uint64_t> open_ends;  // ends of the events the last one sits in
  };
  struct TrackKey {
    int process = 0;
    std::uint64_t id = 0;
    bool api = false;
    auto operator<=>(const TrackKey&) const = default;
  };
  Track& track_for(const TrackKey& key);
  void flush_buffer(bool force);

  std::unique_ptr<Output> output_;
  std::uint64_t origin_ns_ = 0;
  std::map<TrackKey, Track> tracks_;
  std::map<int, int> pids_;  // process (kHostProcess or device) -> pid
  std::string buffer_;
  bool first_event_ = true, closed_ = false;
  std::uint64_t bytes_ = 0;
  TraceWriterStats stats_;
};

// The whole trace of `records` as JSON, through the writer (tests read it back).
nlohmann::json to_chrome_trace(const std::vector<Record>& records, const TraceMetadata& metadata);

// Streams `records` to `path` (gzip for ".gz") and renames it in place.
void write_chrome_trace(const std::filesystem::path& path, const std::vector<Record>& records,
                        const TraceMetadata& metadata);

}  // namespace hdbench::trace
