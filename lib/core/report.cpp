#include "core/report.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <csignal>
#include <cstring>
#include <ctime>
#include <stdexcept>

#include "core/git_revision.hpp"
#include "core/run_watch.hpp"
#include "core/temp_name.hpp"
#include "core/timing.hpp"

namespace hdbench {
namespace {

// The temp file being written, for the signal handler. A fixed buffer because a
// handler may only touch async-signal-safe state.
char g_pending_temp[4096] = {};
std::atomic<bool> g_has_pending_temp{false};

// A second temp file (the streamed trace), and whether the first signal only asks
// the run to stop (defer_first_interrupt).
char g_extra_temp[4096] = {};
std::atomic<bool> g_has_extra_temp{false};
std::atomic<bool> g_defer_first{false};
std::atomic<bool> g_interrupt_requested{false};
std::atomic<int> g_interrupt_signal{0};

// The file a chain of links at `path` ends in (a link that points nowhere yet included),
// so that a rename replaces the file, not the link.
std::filesystem::path through_links(std::filesystem::path path) {
  std::error_code ec;
  const std::filesystem::path given = path;
  for (int hop = 0; std::filesystem::is_symlink(path, ec); ++hop) {
    // The kernel's own limit (ELOOP): a loop of links replaced its first link with the report.
    if (hop == 40) throw std::runtime_error(fmt::format("'{}': too many levels of symbolic links", given.string()));
    const std::filesystem::path next = std::filesystem::read_symlink(path, ec);
    if (ec) break;
    path = next.is_absolute() ? next : path.parent_path() / next;
  }
  return path;
}

void on_interrupt(int signal_number) {
  if (g_defer_first.load() && !g_interrupt_requested.exchange(true)) {
    g_interrupt_signal.store(signal_number);
    constexpr char message[] =
        "\nhdbench: interrupted: finishing the current benchmark, then writing the report of what ran "
        "(interrupt again to stop at once, without it)\n";
    [[maybe_unused]] const ssize_t n = ::write(STDERR_FILENO, message, sizeof message - 1);
    return;
  }
  if (g_has_pending_temp.load()) ::unlink(g_pending_temp);
  if (g_has_extra_temp.load()) ::unlink(g_extra_temp);
  std::signal(signal_number, SIG_DFL);
  std::raise(signal_number);
}

const char* time_unit_name(benchmark::TimeUnit unit) {
  switch (unit) {
    case benchmark::kNanosecond:
      return "ns";
    case benchmark::kMicrosecond:
      return "us";
    case benchmark::kMillisecond:
      return "ms";
    case benchmark::kSecond:
      return "s";
  }
  return "ns";
}

[[noreturn]] void throw_errno(const std::string& what, const std::filesystem::path& path) {
  throw std::runtime_error(fmt::format("cannot {} '{}': {}", what, path.string(), std::strerror(errno)));
}

void write_all(int fd, std::string_view content, const std::filesystem::path& path) {
  while (!content.empty()) {
    const ssize_t written = ::write(fd, content.data(), content.size());
    if (written < 0) {
      if (errno == EINTR) continue;
      throw_errno("write", path);
    }
    content.remove_prefix(static_cast<std::size_t>(written));
  }
}

}  // namespace

namespace {

// A benchmark cut by the budget or its deadline (core/run_watch.hpp) reports the cut,
// whatever the skip or failure it then ran into (a loader stopped by the cancellation).
bool reported_as_cut(benchmark::State& state) {
  const Cut cut = current_cut();
  if (cut.kind == CutKind::none) return false;
  const std::string message = cut.kind == CutKind::budget ? std::string(kSkippedPrefix) + cut.message : cut.message;
  state.SkipWithError(message.c_str());
  return true;
}

}  // namespace

void skip_benchmark(benchmark::State& state, const std::string& reason) {
  if (reported_as_cut(state)) return;
  state.SkipWithError((std::string(kSkippedPrefix) + reason).c_str());
}

void fail_benchmark(benchmark::State& state, const std::string& message) {
  if (reported_as_cut(state)) return;
  state.SkipWithError(message.c_str());
}

void ParamRegistry::add(const std::string& name, nlohmann::json params) {
  if (!params_.emplace(name, std::move(params)).second) {
    throw std::logic_error("benchmark registered twice: " + name);
  }
}

const nlohmann::json* ParamRegistry::find(const std::string& name) const {
  const auto it = params_.find(name);
  return it == params_.end() ? nullptr : &it->second;
}

std::vector<std::string> ParamRegistry::names() const {
  std::vector<std::string> names;
  names.reserve(params_.size());
  for (const auto& [name, params] : params_) names.push_back(name);
  return names;
}

nlohmann::json report_entry(const EntryFields& f) {
  nlohmann::json j;
  j["name"] = f.name;
  j["run_name"] = f.run_name.empty() ? f.name : f.run_name;
  j["run_type"] = "iteration";
  j["repetitions"] = 1;
  j["iterations"] = f.iterations;
  j["real_time"] = f.real_time;
  j["cpu_time"] = f.cpu_time;
  j["time_unit"] = f.time_unit;
  for (const auto& [name, value] : f.counters.items()) j[name] = value;
  j["counters"] = f.counters;
  j["params"] = f.params;
  const std::string_view message = f.error_message;
  if (message.empty()) {
    j["status"] = "ok";
  } else {
    j["error_occurred"] = true;
    j["error_message"] = f.error_message;
    if (message.starts_with(kSkippedPrefix)) {
      j["status"] = "skipped";
      j["skip_reason"] = std::string(message.substr(kSkippedPrefix.size()));
    } else {
      j["status"] = "error";
    }
  }
  nlohmann::json notes = nlohmann::json::array();
  if (const auto cv = f.counters.find("cv_percent");
      cv != f.counters.end() && cv->is_number() && cv->get<double>() > 100.0 * kLargeSpreadCv) {
    notes.push_back(fmt::format("large spread: CV {:.1f}% over the timed samples (> {:.0f}%); the machine may be busy",
                                cv->get<double>(), 100.0 * kLargeSpreadCv));
  }
  // A CPU rate above the measured roof even after the roof was measured again
  // (bench/mlp.cpp, set_roof_counters): the share is left out and the roof named wrong.
  const auto rate = f.counters.find("TFLOP/s");
  const auto roof = f.counters.find("fp32_roof_TFLOP/s");
  if (rate != f.counters.end() && roof != f.counters.end() && rate->is_number() && roof->is_number() &&
      !f.counters.contains("fraction_of_fp32_roof") && rate->get<double>() > roof->get<double>()) {
    notes.push_back(fmt::format(
        "above the CPU's measured fp32 roof: {:.3g} TFLOP/s against {:.3g}, measured at start-up and again after "
        "this run; the roof's trials ran while a core was busy, so fraction_of_fp32_roof is left out",
        rate->get<double>(), roof->get<double>()));
  }
  j["notes"] = notes;
  return j;
}

nlohmann::json run_to_json(const benchmark::BenchmarkReporter::Run& run, const ParamRegistry& params) {
  using Run = benchmark::BenchmarkReporter::Run;
  EntryFields f;
  f.name = run.benchmark_name();
  f.run_name = run.run_name.str();
  f.iterations = run.iterations;
  f.real_time = run.GetAdjustedRealTime();
  f.cpu_time = run.GetAdjustedCPUTime();
  f.time_unit = time_unit_name(run.time_unit);
  for (const auto& [name, counter] : run.counters) f.counters[name] = counter.value;
  // Params are registered under the name given to RegisterBenchmark; Google may
  // append suffixes such as "/manual_time" to the full name.
  if (const nlohmann::json* p = params.find(run.run_name.function_name)) f.params = *p;
  if (run.error_occurred) f.error_message = run.error_message.empty() ? "failed" : run.error_message;
  nlohmann::json j = report_entry(f);
  j["family_index"] = run.family_index;
  j["per_family_instance_index"] = run.per_family_instance_index;
  j["run_type"] = run.run_type == Run::RT_Iteration ? "iteration" : "aggregate";
  j["repetitions"] = run.repetitions;
  if (run.run_type == Run::RT_Iteration) j["repetition_index"] = run.repetition_index;
  j["threads"] = run.threads;
  if (run.run_type == Run::RT_Aggregate) {
    j["aggregate_name"] = run.aggregate_name;
    j["aggregate_unit"] = run.aggregate_unit == benchmark::kPercentage ? "percentage" : "time";
  }
  if (!run.report_label.empty()) j["label"] = run.report_label;
  return j;
}

nlohmann::json context_to_json(const benchmark::BenchmarkReporter::Context& context) {
  nlohmann::json j;
  j["date"] = local_time("%Y-%m-%dT%H:%M:%S%z");
  char host[256] = {};
  ::gethostname(host, sizeof host - 1);
  j["host_name"] = host;
  j["executable"] = benchmark::BenchmarkReporter::Context::executable_name != nullptr
                        ? benchmark::BenchmarkReporter::Context::executable_name
                        : "";
  const benchmark::CPUInfo& cpu = context.cpu_info;
  j["num_cpus"] = cpu.num_cpus;
  j["mhz_per_cpu"] = static_cast<long>(cpu.cycles_per_second / 1.0e6);
  j["cpu_scaling_enabled"] = cpu.scaling == benchmark::CPUInfo::ENABLED;
  nlohmann::json caches = nlohmann::json::array();
  for (const auto& cache : cpu.caches) {
    caches.push_back(
        {{"type", cache.type}, {"level", cache.level}, {"size", cache.size}, {"num_sharing", cache.num_sharing}});
  }
  j["caches"] = caches;
  j["load_avg"] = cpu.load_avg;
#ifdef NDEBUG
  j["library_build_type"] = "release";
#else
  j["library_build_type"] = "debug";
#endif
  return j;
}

CollectingReporter::CollectingReporter(benchmark::BenchmarkReporter& display, const ParamRegistry& params)
    : display_(display), params_(params) {}

bool CollectingReporter::ReportContext(const Context& context) {
  context_ = context_to_json(context);
  return display_.ReportContext(context);
}

void CollectingReporter::ReportRuns(const std::vector<Run>& runs) {
  {
    const std::lock_guard lock(mutex_);
    for (const Run& run : runs) benchmarks_.push_back(run_to_json(run, params_));
  }
  ++runs_done_;
  if (progress_ != nullptr) progress_->end();  // the table line must not land after the progress line
  display_.ReportRuns(runs);
  if (progress_ != nullptr && !runs.empty()) progress_->finished(runs.front().run_name.str());
}

void CollectingReporter::Finalize() { display_.Finalize(); }

nlohmann::json CollectingReporter::benchmarks_snapshot() const {
  const std::lock_guard lock(mutex_);
  return benchmarks_;
}

std::string local_time(const char* format) {
  const std::time_t now = std::time(nullptr);
  std::tm tm{};
  localtime_r(&now, &tm);
  char buffer[64];
  return std::strftime(buffer, sizeof buffer, format, &tm) > 0 ? buffer : "";
}

std::filesystem::path link_target(const std::filesystem::path& path) { return through_links(path); }

nlohmann::json build_info() {
  return {{"version", HDBENCH_VERSION},
          {"git_revision", git_revision()},
          {"build_type", HDBENCH_BUILD_TYPE},
          {"cuda_architectures", HDBENCH_CUDA_ARCHITECTURES}};
}

void check_writable(const std::filesystem::path& given) {
  if (given.empty()) throw std::runtime_error("the report path is empty");
  // `x.json/`: the folder was made here and the rename into it failed after the run.
  if (!given.has_filename()) {
    throw std::runtime_error(fmt::format("'{}' ends in '/', a folder; give a file path", given.string()));
  }
  const std::filesystem::path path = through_links(given);  // where the report will go
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) {
    throw std::runtime_error(fmt::format("'{}' is a directory; give a file path", path.string()));
  }
  // A device or a pipe would be replaced by the rename (as root, /dev/null itself).
  if (std::filesystem::exists(path, ec) && !std::filesystem::is_regular_file(path, ec)) {
    throw std::runtime_error(
        fmt::format("'{}' is not a regular file (a device or a pipe); give a file path", path.string()));
  }
  const std::filesystem::path parent = path.has_parent_path() ? path.parent_path() : ".";
  std::filesystem::create_directories(parent, ec);
  if (ec) {
    throw std::runtime_error(
        fmt::format("cannot create folder '{}' for the report: {}", parent.string(), ec.message()));
  }
  // A name the file system cannot hold failed at the write, after the run (ENAMETOOLONG).
  const long name_max = ::pathconf(parent.c_str(), _PC_NAME_MAX);
  if (name_max > 0 && path.filename().string().size() > static_cast<std::size_t>(name_max)) {
    throw std::runtime_error(fmt::format("the file name '{}…' is {} bytes, longer than the {} its folder takes",
                                         path.filename().string().substr(0, 24), path.filename().string().size(),
                                         name_max));
  }
  const std::filesystem::path probe = parent / fmt::format(".hdbench-probe-{}", ::getpid());
  const int fd = ::open(probe.c_str(), O_WRONLY | O_CREAT | O_EXCL, 0644);
  if (fd < 0) {
    throw std::runtime_error(
        fmt::format("cannot write the report into '{}': {}", parent.string(), std::strerror(errno)));
  }
  ::close(fd);
  ::unlink(probe.c_str());
}

namespace {

// `content` in a flushed temp file beside `target`, registered for removal on an interrupt;
// `publish(temp)` then puts it in place. The temp file is gone however it ends.
template <typename Publish>
auto write_beside(const std::filesystem::path& target, std::string_view content, Publish publish) {
  const std::filesystem::path parent = target.has_parent_path() ? target.parent_path() : ".";
  const std::string temp = temp_path_beside(target).string();
  if (temp.size() >= sizeof g_pending_temp) throw std::runtime_error("report path too long: " + target.string());
  std::memcpy(g_pending_temp, temp.c_str(), temp.size() + 1);
  g_has_pending_temp.store(true);
  try {
    const int fd = ::open(temp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0) throw_errno("create", temp);
    try {
      write_all(fd, content, temp);
      if (::fsync(fd) != 0) throw_errno("flush", temp);
    } catch (...) {
      ::close(fd);
      throw;
    }
    if (::close(fd) != 0) throw_errno("close", temp);
    auto written = publish(temp);
    ::unlink(temp.c_str());  // after a rename, nothing is there; after a link, the temp name goes
    g_has_pending_temp.store(false);
    // Make the rename or link itself durable.
    if (const int dir = ::open(parent.c_str(), O_RDONLY | O_DIRECTORY); dir >= 0) {
      ::fsync(dir);
      ::close(dir);
    }
    return written;
  } catch (...) {
    ::unlink(temp.c_str());
    g_has_pending_temp.store(false);
    throw;
  }
}

}  // namespace

void write_file_atomically(const std::filesystem::path& path, std::string_view content) {
  const std::filesystem::path target = through_links(path);
  write_beside(target, content, [&](const std::string& temp) {
    if (::rename(temp.c_str(), target.c_str()) != 0) throw_errno("rename the report to", target);
    return 0;
  });
}

std::filesystem::path write_file_exclusively(const std::filesystem::path& path, std::string_view content) {
  return write_beside(path, content, [&](const std::string& temp) {
    const std::string stem = path.stem().string();
    const std::string extension = path.extension().string();
    for (int n = 1; n < 1000; ++n) {
      const std::filesystem::path candidate =
          n == 1 ? path : path.parent_path() / fmt::format("{}-{}{}", stem, n, extension);
      if (::link(temp.c_str(), candidate.c_str()) == 0) return candidate;
      if (errno == EPERM || errno == EOPNOTSUPP) {  // a file system without hard links: checked, then taken
        std::error_code ec;
        if (std::filesystem::exists(candidate, ec)) continue;
        if (::rename(temp.c_str(), candidate.c_str()) != 0) throw_errno("rename the report to", candidate);
        return candidate;
      }
      if (errno != EEXIST) throw_errno("write the report as", candidate);
    }
    throw std::runtime_error(fmt::format("{} and the 998 names after it are taken", path.string()));
  });
}

std::string report_text(const nlohmann::json& report, int indent) {
  return report.dump(indent, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
}

void defer_first_interrupt() noexcept { g_defer_first.store(true); }
bool interrupt_requested() noexcept { return g_interrupt_requested.load(); }
int interrupt_signal() noexcept { return g_interrupt_signal.load(); }

void remove_on_interrupt(const std::string& path) noexcept {
  if (path.size() >= sizeof g_extra_temp) return;
  g_has_extra_temp.store(false);
  std::memcpy(g_extra_temp, path.c_str(), path.size() + 1);
  g_has_extra_temp.store(true);
}

void keep_on_interrupt() noexcept { g_has_extra_temp.store(false); }

void install_interrupt_cleanup() {
  struct sigaction action {};
  action.sa_handler = on_interrupt;
  // The first signal's handler returns (the run finishes its benchmark): a slow call it cut,
  // a console write to a full pipe say, resumes rather than failing with EINTR.
  action.sa_flags = SA_RESTART;
  sigemptyset(&action.sa_mask);
  ::sigaction(SIGINT, &action, nullptr);
  ::sigaction(SIGTERM, &action, nullptr);
  ::sigaction(SIGHUP, &action, nullptr);
  ::signal(SIGPIPE, SIG_IGN);
  for (int fd = STDIN_FILENO; fd <= STDERR_FILENO; ++fd) {
    if (::fcntl(fd, F_GETFD) == -1 && errno == EBADF) {
      const int opened = ::open("/dev/null", fd == STDIN_FILENO ? O_RDONLY : O_WRONLY);  // the lowest free: fd
      if (opened >= 0 && opened != fd) ::close(opened);
    }
  }
}

}  // namespace hdbench
