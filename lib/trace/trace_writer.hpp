// CUPTI records as a Chrome Trace Event file, the JSON that the Perfetto UI and
// chrome://tracing open: one process per GPU with a track per stream, one process
// for the host with a track per thread, every record a complete ("X") event.
//
// Rules the writer applies, so that any record list gives a file Perfetto accepts:
// - Times are microseconds (doubles) from metadata.origin_ns. A record that ends
//   before the origin is dropped; one that starts before it and ends after is cut to
//   start at the origin. A record with end < start is shown with zero duration.
// - A host thread has two tracks: its NVTX ranges, and its CUDA API calls on
//   "<thread> (CUDA API)", since an API call may cross a range's edge in timestamps.
// - Perfetto drops X events on one track that overlap without nesting. Each track is
//   sorted by (start asc, end desc), and an event that starts inside another but
//   ends after it (clock jitter, skew between streams' timestamps) has its end
//   clamped to the enclosing event's end; its args then carry "trimmed_us".
// - Counts of dropped and trimmed records are in otherData, beside the host, GPUs
//   and origin.
#pragma once

#include <filesystem>
#include <nlohmann/json.hpp>
#include <vector>

#include "trace/trace_records.hpp"

namespace hdbench::trace {

nlohmann::json to_chrome_trace(const std::vector<Record>& records, const TraceMetadata& metadata);

// Writes to_chrome_trace's JSON to `path` atomically (write_file_atomically).
void write_chrome_trace(const std::filesystem::path& path, const std::vector<Record>& records,
                        const TraceMetadata& metadata);

}  // namespace hdbench::trace
