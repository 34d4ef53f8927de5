#include "trace/trace_writer.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <unistd.h>
#include <zlib.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cstring>
#include <limits>
#include <set>
#include <stdexcept>
#include <tuple>

#include "core/interrupts.hpp"
#include "core/temp_name.hpp"

namespace hdbench::trace {

namespace fs = std::filesystem;

class ChromeTraceWriter::Output {
 public:
  virtual ~Output() = default;
  virtual void write(std::string_view text) = 0;
  virtual void finish() = 0;  // the whole text is in place
};

namespace {

constexpr int kHostPid = 1;
// Below every device index, so the host's tracks come first.
constexpr int kHostProcess = std::numeric_limits<int>::min();
constexpr std::size_t kFlushBytes = 1u << 20;

class StringOutput final : public ChromeTraceWriter::Output {
 public:
  explicit StringOutput(std::string& text) : text_(text) { text_.clear(); }
  void write(std::string_view text) override { text_.append(text); }
  void finish() override {}

 private:
  std::string& text_;
};

[[noreturn]] void throw_errno(const char* what, const fs::path& path) {
  throw std::runtime_error(fmt::format("cannot {} '{}': {}", what, path.string(), std::strerror(errno)));
}

// A temp file beside the destination, gzip-deflated when the destination ends in
// ".gz"; finish() flushes it to disk and renames it, the destructor removes it if not.
class FileOutput final : public ChromeTraceWriter::Output {
 public:
  explicit FileOutput(const fs::path& path) : path_(path), temp_(temp_path_beside(path)) {
    fd_ = ::open(temp_.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd_ < 0) throw_errno("create the trace", temp_);
    remove_on_interrupt(temp_.string());  // a run killed outright leaves no temp file
    if (path.extension() == ".gz") {
      gzip_ = true;
      // 15 + 16: a gzip header and trailer rather than zlib's; level 1 keeps up with
      // hundreds of MB/s of JSON, which compresses ~10x anyway.
      if (deflateInit2(&z_, 1, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK) {
        ::close(fd_);
        ::unlink(temp_.c_str());
        throw std::runtime_error("zlib could not start compressing the trace");
      }
      out_.resize(1u << 18);
    }
  }
  ~FileOutput() override {
    if (gzip_) deflateEnd(&z_);
    if (fd_ >= 0) ::close(fd_);
    if (!renamed_) ::unlink(temp_.c_str());
    keep_on_interrupt();
  }
  void write(std::string_view text) override {
    if (!gzip_) return write_all(text);
    deflate_from(text, Z_NO_FLUSH);
  }
  void finish() override {
    if (gzip_) deflate_from({}, Z_FINISH);
    if (::fsync(fd_) != 0) throw_errno("flush the trace", temp_);
    const int fd = std::exchange(fd_, -1);
    if (::close(fd) != 0) throw_errno("close the trace", temp_);
    if (::rename(temp_.c_str(), path_.c_str()) != 0) throw_errno("rename the trace to", path_);
    renamed_ = true;
    keep_on_interrupt();
  }

 private:
  void write_all(std::string_view text) {
    while (!text.empty()) {
      const ssize_t n = ::write(fd_, text.data(), text.size());
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) throw_errno("write the trace", temp_);
      text.remove_prefix(static_cast<std::size_t>(n));
    }
  }
  void deflate_from(std::string_view text, int flush) {
    z_.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(text.data()));
    z_.avail_in = static_cast<uInt>(text.size());
    int result = Z_OK;
    do {
      z_.next_out = reinterpret_cast<Bytef*>(out_.data());
      z_.avail_out = static_cast<uInt>(out_.size());
      result = deflate(&z_, flush);
      if (result == Z_STREAM_ERROR) throw std::runtime_error("zlib failed compressing the trace");
      write_all({out_.data(), out_.size() - z_.avail_out});
    } while (z_.avail_out == 0 || (flush == Z_FINISH && result != Z_STREAM_END));
  }

  fs::path path_, temp_;
  int fd_ = -1;
  bool gzip_ = false, renamed_ = false;
  z_stream z_{};
  std::string out_;
};

// `text` as a JSON string's contents: quotes, backslashes and control characters
// escaped, bytes that are not UTF-8 (NVTX takes any) replaced by U+FFFD.
void append_escaped(std::string& out, std::string_view text) {
  const auto* s = reinterpret_cast<const unsigned char*>(text.data());
  const std::size_t n = text.size();
  // Most names need nothing done: copied whole.
  if (std::none_of(s, s + n, [](unsigned char c) { return c < 0x20 || c == '"' || c == '\\' || c >= 0x80; })) {
    out.append(text);
    return;
  }
  for (std::size_t i = 0; i < n;) {
    const unsigned char c = s[i];
    if (c < 0x80) {
      if (c == '"' || c == '\\') {
        out += '\\';
        out += static_cast<char>(c);
      } else if (c < 0x20) {
        fmt::format_to(std::back_inserter(out), "\\u{:04x}", c);
      } else {
        out += static_cast<char>(c);
      }
      ++i;
      continue;
    }
    // A well-formed sequence: its length, the range of its second byte, continuations.
    std::size_t length = 0;
    unsigned char low = 0x80, high = 0xBF;
    if (c >= 0xC2 && c <= 0xDF) {
      length = 2;
    } else if (c >= 0xE0 && c <= 0xEF) {
      length = 3;
      low = c == 0xE0 ? 0xA0 : 0x80;
      high = c == 0xED ? 0x9F : 0xBF;
    } else if (c >= 0xF0 && c <= 0xF4) {
      length = 4;
      low = c == 0xF0 ? 0x90 : 0x80;
      high = c == 0xF4 ? 0x8F : 0xBF;
    }
    bool valid = length != 0 && i + length <= n && s[i + 1] >= low && s[i + 1] <= high;
    for (std::size_t k = 2; valid && k < length; ++k) valid = s[i + k] >= 0x80 && s[i + k] <= 0xBF;
    if (valid) {
      out.append(text.substr(i, length));
      i += length;
    } else {
      out += "\xEF\xBF\xBD";
      ++i;
    }
  }
}

// Hand-rolled rather than fmt: the writer spends most of its time here.
void append_uint(std::string& out, std::uint64_t value) {
  char digits[24];
  const auto end = std::to_chars(digits, digits + sizeof digits, value).ptr;
  out.append(digits, end);
}

// Shortest text that reads back as the same double.
void append_double(std::string& out, double value) {
  char digits[32];
  const auto end = std::to_chars(digits, digits + sizeof digits, value).ptr;
  out.append(digits, end);
}

// ns as µs with three decimals: exact, and what a JSON reader takes as a number.
void append_us(std::string& out, std::uint64_t ns) {
  append_uint(out, ns / 1000);
  const unsigned frac = static_cast<unsigned>(ns % 1000);
  const char tail[4] = {'.', static_cast<char>('0' + frac / 100), static_cast<char>('0' + frac / 10 % 10),
                        static_cast<char>('0' + frac % 10)};
  out.append(tail, 4);
}

std::string track_name(int process, std::uint64_t id, bool api, const TraceMetadata& metadata) {
  if (process != kHostProcess) {
    const auto it = metadata.stream_names.find(static_cast<std::uint32_t>(id));
    return it != metadata.stream_names.end() ? it->second : "stream " + std::to_string(id);
  }
  const auto it = metadata.thread_names.find(id);
  const std::string thread = it != metadata.thread_names.end() ? it->second : "thread " + std::to_string(id);
  return api ? thread + " (CUDA API)" : thread;
}

std::string process_name(int process, const TraceMetadata& metadata) {
  if (process == kHostProcess) return "host " + metadata.host_name;
  const bool known = process >= 0 && static_cast<std::size_t>(process) < metadata.gpu_names.size();
  return "GPU " + std::to_string(process) + ": " + (known ? metadata.gpu_names[process] : std::string("unknown"));
}

struct Event {
  std::uint64_t start = 0, end = 0, trimmed = 0;  // ns from the origin; trimmed: cut off the end
  const Record* record = nullptr;
  void* track = nullptr;
};

// Kineto's (the PyTorch profiler's) categories and names, so Holistic Trace Analysis
// and other Kineto readers open hdbench's traces: "gpu_memcpy" events named
// "Memcpy HtoD (Pageable -> Device)", "cuda_runtime" calls, "user_annotation" ranges.
const char* kineto_category(RecordKind kind) noexcept {
  switch (kind) {
    case RecordKind::memcpy:
      return "gpu_memcpy";
    case RecordKind::memset:
      return "gpu_memset";
    case RecordKind::kernel:
      return "kernel";
    case RecordKind::range:
      return "user_annotation";
    case RecordKind::api:
      return "cuda_runtime";
  }
  return "unknown";
}

const char* kineto_memory(MemoryKind kind) noexcept {
  switch (kind) {
    case MemoryKind::pageable:
      return "Pageable";
    case MemoryKind::pinned:
      return "Pinned";
    case MemoryKind::device:
      return "Device";
    case MemoryKind::array:
      return "Array";
    case MemoryKind::managed:
      return "Managed";
    case MemoryKind::unknown:
      break;
  }
  return "Unknown";
}

void append_event_name(std::string& out, const Record& r) {
  switch (r.kind) {
    case RecordKind::memcpy:
      out += "Memcpy ";
      append_escaped(out, r.name);
      out += " (";
      out += kineto_memory(r.src);
      out += " -> ";
      out += kineto_memory(r.dst);
      out += ')';
      return;
    case RecordKind::memset:
      out += "Memset (Device)";
      return;
    default:
      append_escaped(out, r.name);
  }
}

void append_args(std::string& out, const Record& r, std::uint64_t trimmed) {
  const std::size_t opened = out.size();
  out += ",\"args\":{";
  const std::size_t first = out.size();
  auto sep = [&] {
    if (out.size() != first) out += ',';
  };
  if (is_gpu_record(r.kind)) {  // Kineto's device and stream, beside the track
    out += "\"device\":";
    append_uint(out, static_cast<std::uint64_t>(std::max(r.device, 0)));
    out += ",\"stream\":";
    append_uint(out, r.stream);
  }
  switch (r.kind) {
    case RecordKind::memcpy:
      out += ",\"bytes\":";
      append_uint(out, r.bytes);
      // From the record's own duration: cutting it to the origin or to nest is
      // presentation and must not change the measured bandwidth.
      if (r.end_ns > r.start_ns) {
        out += ",\"memory bandwidth (GB/s)\":";
        append_double(out, static_cast<double>(r.bytes) / static_cast<double>(r.end_ns - r.start_ns));
      }
      out += ",\"src\":\"";
      out += to_string(r.src);
      out += "\",\"dst\":\"";
      out += to_string(r.dst);
      out += '"';
      break;
    case RecordKind::memset:
      out += ",\"bytes\":";
      append_uint(out, r.bytes);
      break;
    case RecordKind::range:
      if (r.bytes != 0) {
        out += "\"bytes\":";
        append_uint(out, r.bytes);
      }
      break;
    case RecordKind::kernel:
    case RecordKind::api:
      break;
  }
  if (r.kind == RecordKind::api || r.correlation != 0) {
    sep();
    out += "\"correlation\":";
    append_uint(out, r.correlation);
  }
  if (trimmed != 0) {
    sep();
    out += "\"trimmed_us\":";
    append_us(out, trimmed);
  }
  if (out.size() == first) {
    out.resize(opened);  // no args
  } else {
    out += '}';
  }
}

void append_metadata(std::string& out, const char* name, int pid, int tid, const std::string& key,
                     const std::string& value_json) {
  // ts is optional for metadata; some older viewers expect it anyway.
  fmt::format_to(std::back_inserter(out), ",\n{{\"ph\":\"M\",\"name\":\"{}\",\"pid\":{},", name, pid);
  if (tid >= 0) fmt::format_to(std::back_inserter(out), "\"tid\":{},", tid);
  fmt::format_to(std::back_inserter(out), "\"ts\":0,\"args\":{{\"{}\":{}}}}}", key, value_json);
}

std::string json_string(const std::string& text) {
  std::string out = "\"";
  append_escaped(out, text);
  return out + '"';
}

}  // namespace

ChromeTraceWriter::ChromeTraceWriter(const fs::path& path, std::uint64_t origin_ns)
    : output_(std::make_unique<FileOutput>(path)), origin_ns_(origin_ns) {
  buffer_ = "{\"traceEvents\":[";
}

ChromeTraceWriter::ChromeTraceWriter(std::string& text, std::uint64_t origin_ns)
    : output_(std::make_unique<StringOutput>(text)), origin_ns_(origin_ns) {
  buffer_ = "{\"traceEvents\":[";
}

ChromeTraceWriter::~ChromeTraceWriter() = default;

ChromeTraceWriter::Track& ChromeTraceWriter::track_for(const TrackKey& key) {
  auto [it, added] = tracks_.try_emplace(key);
  if (added) {
    // One tid per track across the whole file: Perfetto's JSON import may treat a
    // tid seen under two pids as one thread, so stream and thread ids are not reused.
    it->second.tid = static_cast<int>(tracks_.size());
    auto [pid, new_process] = pids_.try_emplace(key.process, 0);
    if (new_process) pid->second = key.process == kHostProcess ? kHostPid : kHostPid + static_cast<int>(pids_.size());
    it->second.pid = pid->second;
  }
  return it->second;
}

void ChromeTraceWriter::flush_buffer(bool force) {
  if (!force && buffer_.size() < kFlushBytes) return;
  bytes_ += buffer_.size();
  output_->write(buffer_);
  buffer_.clear();
}

void ChromeTraceWriter::write(std::span<const Record> records) {
  if (closed_) throw std::logic_error("ChromeTraceWriter::write after close");
  std::vector<Event> events;
  events.reserve(records.size());
  for (const Record& r : records) {
    const std::uint64_t end = std::max(r.end_ns, r.start_ns);
    if (end < origin_ns_) {
      ++stats_.dropped_before_origin;
      continue;
    }
    const TrackKey key = is_gpu_record(r.kind) ? TrackKey{r.device, r.stream, false}
                                               : TrackKey{kHostProcess, r.thread, r.kind == RecordKind::api};
    events.push_back({std::max(r.start_ns, origin_ns_) - origin_ns_, end - origin_ns_, 0, &r, &track_for(key)});
  }
  // By track, then (start asc, end desc): every enclosing event before what it
  // encloses, so one sweep per track nests them.
  std::stable_sort(events.begin(), events.end(), [](const Event& a, const Event& b) {
    return std::tie(a.track, a.start, b.end) < std::tie(b.track, b.start, a.end);
  });
  for (Event& e : events) {
    Track& t = *static_cast<Track*>(e.track);
    if (e.start < t.last_start) {
      ++stats_.out_of_order;
    } else {
      t.last_start = e.start;
      while (!t.open_ends.empty() && t.open_ends.back() <= e.start) t.open_ends.pop_back();
      if (!t.open_ends.empty() && e.end > t.open_ends.back()) {
        e.trimmed = e.end - t.open_ends.back();
        e.end = t.open_ends.back();
        ++stats_.trimmed_to_nest;
      }
      t.open_ends.push_back(e.end);
    }
    const Record& r = *e.record;
    buffer_ += first_event_ ? "\n{\"ph\":\"X\",\"name\":\"" : ",\n{\"ph\":\"X\",\"name\":\"";
    first_event_ = false;
    append_event_name(buffer_, r);
    buffer_ += "\",\"cat\":\"";
    buffer_ += kineto_category(r.kind);
    buffer_ += "\",\"pid\":";
    append_uint(buffer_, static_cast<std::uint64_t>(t.pid));
    buffer_ += ",\"tid\":";
    append_uint(buffer_, static_cast<std::uint64_t>(t.tid));
    buffer_ += ",\"ts\":";
    append_us(buffer_, e.start);
    buffer_ += ",\"dur\":";
    append_us(buffer_, e.end - e.start);
    append_args(buffer_, r, e.trimmed);
    buffer_ += '}';
    ++stats_.events;
    flush_buffer(false);
  }
}

void ChromeTraceWriter::close(const TraceMetadata& metadata, const nlohmann::json& extra) {
  if (closed_) return;
  // Every GPU is a process, with records or not; the host first, then devices in order.
  pids_.try_emplace(kHostProcess, kHostPid);
  for (std::size_t d = 0; d < metadata.gpu_names.size(); ++d) {
    if (!pids_.contains(static_cast<int>(d))) {
      const int pid = kHostPid + static_cast<int>(pids_.size());
      pids_[static_cast<int>(d)] = pid;
    }
  }
  std::string& out = buffer_;
  bool first = first_event_;
  auto strip_first_comma = [&](std::size_t from) {
    if (first) {
      out.erase(from, 1);  // the leading ','
      first = false;
    }
  };
  int sort_index = 0;
  for (const auto& [process, pid] : pids_) {
    std::size_t at = out.size();
    append_metadata(out, "process_name", pid, -1, "name", json_string(process_name(process, metadata)));
    strip_first_comma(at);
    append_metadata(out, "process_sort_index", pid, -1, "sort_index", std::to_string(sort_index++));
  }
  for (const auto& [key, track] : tracks_) {
    append_metadata(out, "thread_name", track.pid, track.tid, "name",
                    json_string(track_name(key.process, key.id, key.api, metadata)));
    append_metadata(out, "thread_sort_index", track.pid, track.tid, "sort_index", std::to_string(track.tid));
  }
  nlohmann::json gpus = nlohmann::json::array();
  for (const std::string& name : metadata.gpu_names) gpus.push_back(name);
  nlohmann::json other = {{"generator", "hdbench"},
                          {"host_name", metadata.host_name},
                          {"gpus", std::move(gpus)},
                          {"origin_ns", origin_ns_},
                          {"records", stats_.events + stats_.dropped_before_origin},
                          {"dropped_before_origin", stats_.dropped_before_origin},
                          {"trimmed_to_nest", stats_.trimmed_to_nest},
                          {"out_of_order", stats_.out_of_order}};
  for (const auto& [key, value] : extra.items()) other[key] = value;
  // Kineto's readers (Holistic Trace Analysis) take each file's rank from here.
  out +=
      fmt::format("\n],\"distributedInfo\":{{\"rank\":{}}},\"displayTimeUnit\":\"ns\",\"otherData\":", metadata.rank);
  out += other.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  out += "}\n";
  flush_buffer(true);
  output_->finish();
  closed_ = true;
}

nlohmann::json to_chrome_trace(const std::vector<Record>& records, const TraceMetadata& metadata) {
  std::string text;
  ChromeTraceWriter writer(text, metadata.origin_ns);
  writer.write(records);
  writer.close(metadata);
  return nlohmann::json::parse(text);
}

void write_chrome_trace(const fs::path& path, const std::vector<Record>& records, const TraceMetadata& metadata) {
  ChromeTraceWriter writer(path, metadata.origin_ns);
  writer.write(records);
  writer.close(metadata);
}

}  // namespace hdbench::trace
