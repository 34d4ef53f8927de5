#include "trace/trace_writer.hpp"

#include <algorithm>
#include <limits>
#include <map>
#include <set>
#include <string>
#include <tuple>

#include "core/report.hpp"

namespace hdbench::trace {
namespace {

using nlohmann::json;

constexpr int kHostPid = 1;
// Below every device index, so the host's tracks come first in the track map.
constexpr int kHostProcess = std::numeric_limits<int>::min();

// A track: a GPU's stream, or a host thread's ranges or its API calls.
struct TrackKey {
  int process = kHostProcess;  // kHostProcess or the device index
  std::uint64_t id = 0;        // stream id or OS thread id
  bool api = false;
  auto operator<=>(const TrackKey&) const = default;
};

struct Event {
  std::uint64_t start = 0, end = 0;  // ns from the origin
  std::uint64_t trimmed = 0;         // ns cut off the end to nest
  const Record* record = nullptr;
};

double to_us(std::uint64_t ns) { return static_cast<double>(ns) / 1e3; }

TrackKey track_of(const Record& r) {
  if (is_gpu_record(r.kind)) return {r.device, r.stream, false};
  return {kHostProcess, r.thread, r.kind == RecordKind::api};
}

std::string track_name(const TrackKey& key, const TraceMetadata& metadata) {
  if (key.process != kHostProcess) {
    const auto it = metadata.stream_names.find(static_cast<std::uint32_t>(key.id));
    return it != metadata.stream_names.end() ? it->second : "stream " + std::to_string(key.id);
  }
  const auto it = metadata.thread_names.find(key.id);
  const std::string thread = it != metadata.thread_names.end() ? it->second : "thread " + std::to_string(key.id);
  return key.api ? thread + " (CUDA API)" : thread;
}

std::string process_name(int process, const TraceMetadata& metadata) {
  if (process == kHostProcess) return "host " + metadata.host_name;
  const bool known = process >= 0 && static_cast<std::size_t>(process) < metadata.gpu_names.size();
  return "GPU " + std::to_string(process) + ": " + (known ? metadata.gpu_names[process] : std::string("unknown"));
}

json metadata_event(const char* name, int pid, json args) {
  // ts is optional for metadata; some older viewers expect it anyway.
  return {{"ph", "M"}, {"name", name}, {"pid", pid}, {"ts", 0}, {"args", std::move(args)}};
}

json metadata_event(const char* name, int pid, int tid, json args) {
  json event = metadata_event(name, pid, std::move(args));
  event["tid"] = tid;
  return event;
}

// Perfetto keeps only X events that nest on their track. Sorting by (start asc, end
// desc) puts every enclosing event before what it encloses; an event that starts
// inside the innermost open one but outlives it is cut to end with it. Returns how
// many were cut.
std::size_t nest(std::vector<Event>& events) {
  std::stable_sort(events.begin(), events.end(),
                   [](const Event& a, const Event& b) { return std::tie(a.start, b.end) < std::tie(b.start, a.end); });
  std::size_t trimmed = 0;
  std::vector<std::uint64_t> open_ends;
  for (Event& e : events) {
    while (!open_ends.empty() && open_ends.back() <= e.start) open_ends.pop_back();
    if (!open_ends.empty() && e.end > open_ends.back()) {
      e.trimmed = e.end - open_ends.back();
      e.end = open_ends.back();
      ++trimmed;
    }
    open_ends.push_back(e.end);
  }
  return trimmed;
}

json args_of(const Event& e) {
  const Record& r = *e.record;
  json args = json::object();
  switch (r.kind) {
    case RecordKind::memcpy:
      args["kind"] = r.name;
      args["bytes"] = r.bytes;
      // From the record's own duration: cutting it to the origin or to nest is
      // presentation and must not change the measured bandwidth.
      if (r.end_ns > r.start_ns) {
        args["GB/s"] = static_cast<double>(r.bytes) / static_cast<double>(r.end_ns - r.start_ns);
      }
      args["src"] = to_string(r.src);
      args["dst"] = to_string(r.dst);
      break;
    case RecordKind::memset:
      args["bytes"] = r.bytes;
      break;
    case RecordKind::range:
      if (r.bytes != 0) args["bytes"] = r.bytes;
      break;
    case RecordKind::kernel:
    case RecordKind::api:
      break;
  }
  if (r.kind == RecordKind::api || r.correlation != 0) args["correlation"] = r.correlation;
  if (e.trimmed != 0) args["trimmed_us"] = to_us(e.trimmed);
  return args;
}

}  // namespace

json to_chrome_trace(const std::vector<Record>& records, const TraceMetadata& metadata) {
  const std::uint64_t origin = metadata.origin_ns;
  std::map<TrackKey, std::vector<Event>> tracks;
  std::set<int> processes{kHostProcess};
  for (std::size_t device = 0; device < metadata.gpu_names.size(); ++device) processes.insert(static_cast<int>(device));
  std::size_t dropped = 0;
  for (const Record& r : records) {
    const std::uint64_t end = std::max(r.end_ns, r.start_ns);
    if (end < origin) {
      ++dropped;
      continue;
    }
    const TrackKey key = track_of(r);
    processes.insert(key.process);
    tracks[key].push_back({std::max(r.start_ns, origin) - origin, end - origin, 0, &r});
  }

  json events = json::array();
  std::map<int, int> pids;
  int sort_index = 0;
  for (const int process : processes) {  // the host first, then devices in order
    const int pid = kHostPid + sort_index;
    pids[process] = pid;
    events.push_back(metadata_event("process_name", pid, {{"name", process_name(process, metadata)}}));
    events.push_back(metadata_event("process_sort_index", pid, {{"sort_index", sort_index++}}));
  }

  // One tid per track across the whole file: Perfetto's JSON import may treat a tid
  // seen under two pids as one thread, so stream ids and thread ids are not reused.
  int tid = 0;
  std::size_t trimmed = 0;
  for (auto& [key, track] : tracks) {
    ++tid;
    const int pid = pids.at(key.process);
    events.push_back(metadata_event("thread_name", pid, tid, {{"name", track_name(key, metadata)}}));
    events.push_back(metadata_event("thread_sort_index", pid, tid, {{"sort_index", tid}}));
    trimmed += nest(track);
    for (const Event& e : track) {
      json event = {{"ph", "X"},  {"name", e.record->name}, {"cat", to_string(e.record->kind)}, {"pid", pid},
                    {"tid", tid}, {"ts", to_us(e.start)},   {"dur", to_us(e.end - e.start)}};
      if (json args = args_of(e); !args.empty()) event["args"] = std::move(args);
      events.push_back(std::move(event));
    }
  }

  json gpus = json::array();
  for (const std::string& name : metadata.gpu_names) gpus.push_back(name);
  return {{"traceEvents", std::move(events)},
          {"displayTimeUnit", "ns"},
          {"otherData",
           {{"generator", "hdbench"},
            {"host_name", metadata.host_name},
            {"gpus", std::move(gpus)},
            {"origin_ns", origin},
            {"records", records.size()},
            {"dropped_before_origin", dropped},
            {"trimmed_to_nest", trimmed}}}};
}

void write_chrome_trace(const std::filesystem::path& path, const std::vector<Record>& records,
                        const TraceMetadata& metadata) {
  // Names come from user code (NVTX) and need not be UTF-8: bad bytes become U+FFFD
  // rather than losing the whole trace to an exception.
  const std::string text = to_chrome_trace(records, metadata).dump(-1, ' ', false, json::error_handler_t::replace);
  write_file_atomically(path, text);
}

}  // namespace hdbench::trace
