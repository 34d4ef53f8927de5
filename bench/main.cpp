// hdbench: parse and validate options, discover the machine, register every family,
// run them through Google Benchmark, and write one JSON report atomically.
// Exit codes: 0 done (skips are fine), 1 a benchmark failed or the run broke,
// 2 bad usage (nothing ran), 128 + n wound down after signal n (the report of what ran written).
#include <benchmark/benchmark.h>
#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <map>
#include <numeric>
#include <optional>
#include <regex>
#include <tuple>

#include "core/cpu_features.hpp"
#include "core/fma_roof.hpp"
#include "core/gpu_conditions.hpp"
#include "core/interrupts.hpp"
#include "core/progress.hpp"
#include "core/report.hpp"
#include "core/run_watch.hpp"
#include "core/suite.hpp"
#include "core/system.hpp"
#include "core/timing.hpp"
#include "families.hpp"
#include "run_start.hpp"
#include "trace/trace_session.hpp"

namespace hdbench {
namespace {

// The CPU's measured fp32 roof (what CPU figures are rated against) beside the nominal peak.
void print_cpu_roof(const FmaRoof& roof, const CpuFeatures& cpu) {
  fmt::print(
      "CPU fp32 roof ({} FMA loop): {:.0f} GFLOP/s on 1 thread, {:.0f} on {}; nominal {:.0f} ({} cores x {} "
      "FLOP/cycle x {:.2f} GHz)\n",
      roof.isa, roof.one_thread_gflops, roof.all_threads_gflops, roof.threads, cpu.fp32_peak_gflops(),
      cpu.physical_cores, cpu.fp32_flops_per_cycle(), cpu.clock_ghz);
  if (!roof.one_thread.confirmed || !roof.all_threads.confirmed) {
    fmt::print(
        "  (no two of {} trials agreed within 2%: the host is busy, so the roof may read low and fractions of "
        "it high)\n",
        std::max(roof.one_thread.trials, roof.all_threads.trials));
  }
}

// The --benchmark_min_time Google Benchmark will use (main adds 0.1 when absent).
double min_time_seconds(const std::vector<std::string>& gb_args) {
  double seconds = 0.1;
  for (const std::string& arg : gb_args) {
    if (!arg.starts_with("--benchmark_min_time=")) continue;
    try {
      seconds = std::stod(arg.substr(std::string_view("--benchmark_min_time=").size()));
    } catch (const std::exception&) {
      // Google Benchmark says what is wrong with it.
    }
  }
  return seconds;
}

bool has_flag(const std::vector<std::string>& args, std::string_view flag) {
  return std::any_of(args.begin(), args.end(),
                     [&](const std::string& a) { return std::string_view(a).starts_with(flag); });
}

void print_machine(const system::SystemInfo& info) {
  fmt::print("hdbench {} on {}: {} ({} logical cores, {:.1f} GiB, {} NUMA node{})\n",
             build_info()["version"].get<std::string>(), info.host.hostname, info.host.cpu_model,
             info.host.logical_cores, static_cast<double>(info.host.memory_total_bytes) / (1u << 30),
             info.host.numa_nodes, info.host.numa_nodes == 1 ? "" : "s");
  if (!info.gpu_usable()) {
    fmt::print("No usable GPU: {}\nGPU benchmarks are reported as skipped; host benchmarks run.\n\n",
               info.gpu_unavailable_reason);
    return;
  }
  for (const auto& gpu : info.gpus) {
    fmt::print(
        "GPU {}: {} (sm_{}{}, {} SMs, {:.1f} GiB, {} copy engines) at {}, PCIe gen{} x{} (max gen{} x{}, {:.1f} "
        "GB/s)\n",
        gpu.index, gpu.name, gpu.compute_capability_major, gpu.compute_capability_minor, gpu.sm_count,
        static_cast<double>(gpu.total_memory_bytes) / (1u << 30), gpu.copy_engines, gpu.pci_bus_id,
        gpu.link_current.generation, gpu.link_current.width, gpu.link_max.generation, gpu.link_max.width,
        system::pcie_link_gbps(gpu.link_max));
  }
  fmt::print("\n");
}

// Skips grouped by reason (so a GPU-less run prints one line, not hundreds),
// failures one by one, large spreads, each family's answers, and where the report went.
int print_summary(const nlohmann::json& benchmarks, const nlohmann::json& derived, const std::string& path,
                  const Suite& suite) {
  std::map<std::string, std::vector<std::string>> skipped;
  std::vector<std::string> failed, noisy;
  std::size_t ok = 0;
  for (const auto& b : benchmarks) {
    const std::string status = b.value("status", "");
    if (status == "ok") ++ok;
    if (status == "skipped") skipped[b.value("skip_reason", "")].push_back(b.value("name", ""));
    if (status == "error") failed.push_back(fmt::format("{}: {}", b.value("name", ""), b.value("error_message", "")));
    if (!b["notes"].empty())
      noisy.push_back(fmt::format("{}: {}", b.value("name", ""), b["notes"][0].get<std::string>()));
  }
  fmt::print("\n{} benchmarks ran, {} skipped, {} failed.\n", ok,
             std::accumulate(skipped.begin(), skipped.end(), std::size_t{0},
                             [](std::size_t n, const auto& kv) { return n + kv.second.size(); }),
             failed.size());
  for (const auto& [reason, names] : skipped) {
    fmt::print("Skipped {} (e.g. {}): {}\n", names.size(), names.front(), reason);
  }
  for (const auto& line : failed) fmt::print("FAILED {}\n", line);
  // Small sizes on a busy host are noisy by nature; the report keeps every note.
  constexpr std::size_t kNotesShown = 5;
  for (std::size_t i = 0; i < noisy.size() && i < kNotesShown; ++i) fmt::print("Note {}\n", noisy[i]);
  if (noisy.size() > kNotesShown) {
    fmt::print("… and {} more notes on large spreads (see \"notes\" in the report)\n", noisy.size() - kNotesShown);
  }
  suite.print_console_summaries(derived);
  fmt::print("Report: {}\n", path);
  return failed.empty() ? 0 : 1;
}

// The watchdog's last resort (core/run_watch.hpp): the benchmark in flight did not return
// after it was asked to stop, so the report is written now, from another thread, with
// what completed and that benchmark marked as the error it is; the process then exits 1.
void write_last_resort_report(const std::string& path, bool default_path, const CollectingReporter& collector,
                              const ParamRegistry& params, const std::string& in_flight, const std::string& why,
                              nlohmann::json hdbench_context) {
  const std::string message = fmt::format("{}; the run ended here, benchmarks after it were not run", why);
  nlohmann::json report;
  report["context"] = collector.context();
  hdbench_context["ended_early"] = {{"benchmark", in_flight}, {"reason", message}};
  report["context"]["hdbench"] = std::move(hdbench_context);
  report["benchmarks"] = collector.benchmarks_snapshot();
  EntryFields entry;
  entry.name = in_flight + "/manual_time";
  entry.run_name = entry.name;
  if (const nlohmann::json* p = params.find(in_flight)) entry.params = *p;
  entry.error_message = message;
  report["benchmarks"].push_back(report_entry(entry));
  report["derived"] = nlohmann::json::object();
  try {
    const std::string written = write_report_file(path, default_path, report);
    std::fprintf(stderr, "\nhdbench: %s: %s\nReport: %s\n", in_flight.c_str(), message.c_str(), written.c_str());
  } catch (const std::exception& error) {
    std::fprintf(stderr, "\nhdbench: %s: %s; the report could not be written: %s\n", in_flight.c_str(), message.c_str(),
                 error.what());
  }
  std::fflush(stderr);
}

// A listing flag's JSON, to standard output ("-") or to the file `flag` named; exit code 0.
int write_listing(const nlohmann::json& listing, const std::string& path, std::string_view flag) {
  const std::string text = report_text(listing, 1);
  if (path == "-") {
    fmt::print("{}", text);
    // a small listing sits in stdio's buffer: a full or closed stdout shows only at the flush
    if (std::fflush(stdout) != 0 || std::ferror(stdout)) {
      throw std::runtime_error(fmt::format("{}=-: cannot write to standard output: {}", flag, std::strerror(errno)));
    }
  } else {
    check_out_path(path, flag);
    write_file_atomically(path, text);
  }
  return 0;
}

// --hdbench_list_cases: every selected case as the report would name it, with its
// params and, where it would be skipped, why; nothing runs.
int list_cases(const Suite& suite, const std::string& path) {
  nlohmann::json cases = nlohmann::json::array();
  for (const std::string& name : suite.params().names()) {
    nlohmann::json c = {{"name", name}, {"params", *suite.params().find(name)}};
    if (const std::string reason = suite.skip_reason(name); !reason.empty()) c["skip_reason"] = reason;
    cases.push_back(std::move(c));
  }
  return write_listing(cases, path, "--hdbench_list_cases");
}

// --hdbench_describe_families: every family's description, as reports carry them;
// nothing runs (tools/report_format_doc.py writes the docs' tables from it).
int describe_families(const CommandLine& line, const std::string& path) {
  return write_listing(line.families_json(false), path, "--hdbench_describe_families");
}

int run(int argc, char** argv) {
  install_interrupt_cleanup();
  const std::vector<std::string> args(argv + 1, argv + argc);
  const std::unique_ptr<CommandLine> command_line_owner =
      parse_command_line(args, this_machine_limits(), random_seed());
  CommandLine& command_line = *command_line_owner;
  Options& options = command_line.options;
  if (command_line.flags.help_requested()) {
    fmt::print("{}", command_line.flags.help());
    return 0;
  }
  if (!options.describe_families_path.empty()) {
    return describe_families(command_line, options.describe_families_path);
  }

  // Before anything runs: the CPU step's BLAS on kernels that match this CPU.
  const CpuFeatures cpu = discover_cpu_features();
  ensure_blas_core(command_line.cpu_blas, cpu, argv);

  // Google Benchmark gets everything that is not ours; unknown flags are its to reject,
  // the values it would answer with its usage text and exit code 0 are ours.
  check_benchmark_flags(command_line.passthrough);
  check_repetitions(command_line.passthrough, options.stopping_rule.enabled);
  std::vector<std::string> gb_args{argv[0]};
  gb_args.insert(gb_args.end(), command_line.passthrough.begin(), command_line.passthrough.end());
  // With the stopping rule (core/stopping_rule.hpp) a benchmark's one iteration samples
  // until the rule stops it, and a min_time of 0 makes that first trial final (any
  // manual time >= 0): no repeated trials, each repeating the set-up. Without the rule
  // (--benchmark_min_time given, or --hdbench_noise_target=0), Google Benchmark's rule
  // at 0.1 s unless given.
  if (options.stopping_rule.enabled) {
    gb_args.emplace_back("--benchmark_min_time=0");
  } else if (!has_flag(command_line.passthrough, "--benchmark_min_time")) {
    gb_args.emplace_back("--benchmark_min_time=0.1");
  }
  std::vector<char*> gb_argv;
  for (std::string& a : gb_args) gb_argv.push_back(a.data());
  int gb_argc = static_cast<int>(gb_argv.size());
  benchmark::Initialize(&gb_argc, gb_argv.data());
  if (benchmark::ReportUnrecognizedArguments(gb_argc, gb_argv.data())) return 2;
  const bool listing_only = has_flag(command_line.passthrough, "--benchmark_list_tests") &&
                            !has_flag(command_line.passthrough, "--benchmark_list_tests=false");

  const system::SystemInfo info = system::discover();
  if (info.gpu_usable() && options.device >= static_cast<int>(info.gpus.size())) {
    throw UsageError(fmt::format("--hdbench_device: {} is not valid; accepted: 0 to {} on this machine", options.device,
                                 info.gpus.size() - 1));
  }
  const bool default_out = options.out_path.empty();
  if (default_out) options.out_path = default_report_path("hdbench", info);
  if (!listing_only && options.list_cases_path.empty()) {
    check_out_path(options.out_path, "--hdbench_out");
    const DatasetSource dataset = resolve_dataset(command_line.data);
    if (dataset.idx()) check_not_dataset_file(options.out_path, dataset.dir, "--hdbench_out");
    if (!command_line.trace.path.empty()) {
      check_out_path(command_line.trace.path, "--hdbench_trace");
      if (dataset.idx()) check_not_dataset_file(command_line.trace.path, dataset.dir, "--hdbench_trace");
      std::error_code ec;
      // through links: a trace path linking to the report's would be overwritten by it
      if (std::filesystem::weakly_canonical(link_target(command_line.trace.path), ec) ==
          std::filesystem::weakly_canonical(link_target(options.out_path), ec)) {
        throw UsageError(fmt::format("--hdbench_trace={}: is the report's path too (--hdbench_out); give another",
                                     command_line.trace.path));
      }
    }
    print_machine(info);
    print_cpu_roof(this_machine_fma_roof(), cpu);  // measured here, at start-up, before any benchmark
  }

  Suite suite(options, info);
  // Every single-GPU benchmark runs once per selected device (Suite::add_gpu).
  suite.set_devices(resolve_devices(command_line.devices, options.device, static_cast<int>(info.gpus.size())));
  command_line.register_selected(suite);
  if (!options.list_cases_path.empty()) return list_cases(suite, options.list_cases_path);

  benchmark::ConsoleReporter console(console_colour(command_line.passthrough)
                                         ? benchmark::ConsoleReporter::OO_ColorTabular
                                         : benchmark::ConsoleReporter::OO_Tabular);
  CollectingReporter collector(console, suite.params());
  // Every registered benchmark uses manual time, which Google appends to its name.
  std::vector<std::string> full_names = suite.params().names();
  for (std::string& name : full_names) name += "/manual_time";
  std::string filter;
  for (const std::string& arg : command_line.passthrough) {
    if (arg.starts_with("--benchmark_filter=")) filter = arg.substr(std::string_view("--benchmark_filter=").size());
  }
  std::vector<std::string> skipped_names = suite.skipped_names();
  for (std::string& name : skipped_names) name += "/manual_time";
  std::size_t selected = full_names.size();
  std::size_t selected_skipped = skipped_names.size();
  try {
    selected = count_selected(full_names, filter);
    selected_skipped = count_selected(skipped_names, filter);
  } catch (const std::regex_error&) {
    // Google Benchmark rejects the pattern itself, with its own message; nothing runs then.
  }
  // A family may register nothing here (p2p with one GPU): only a filter that selects none is bad usage.
  if (selected == 0 && !filter.empty() && !full_names.empty() && !listing_only) {
    throw UsageError(
        fmt::format("--benchmark_filter={}: selects none of the {} benchmarks of the families chosen "
                    "(--hdbench_list_cases=- lists them)",
                    filter, full_names.size()));
  }
  if (!listing_only) {
    fmt::print(
        "Preset {}: {}\n\n", to_string(options.preset),
        plan_line(selected, selected_skipped, options.stopping_rule, min_time_seconds(gb_args), options.max_minutes));
    std::fflush(stdout);
  }
  const std::string started_at = local_time("%Y-%m-%dT%H:%M:%S%z");
  // The budget and each benchmark's deadline, held while benchmarks run (core/run_watch.hpp).
  std::optional<RunWatch> watch;
  if (!listing_only) {
    const WatchLimits limits{.budget_seconds = 60.0 * options.max_minutes,
                             .deadline_seconds = options.deadline_seconds > 0
                                                     ? options.deadline_seconds
                                                     : default_deadline_seconds(options.stopping_rule.timeout_seconds)};
    watch.emplace(limits, [&](const std::string& in_flight, const std::string& why) {
      write_last_resort_report(options.out_path, default_out, collector, suite.params(), in_flight, why,
                               run_context(info, command_line, started_at));
    });
    suite.set_watch(&*watch);
    if (options.max_minutes > 0) suite.set_budget([&watch] { return watch->budget_spent(); });
  }
  Progress progress(selected, !listing_only && isatty(STDERR_FILENO) != 0);
  collector.set_progress(&progress);
  std::optional<trace::TraceSession> trace;
  if (!listing_only) trace.emplace(command_line.trace, suite.devices().front(), info, suite);
  // Each selected GPU's clocks, power, temperature and throttle reasons at each
  // family's start and end on it.
  std::string nvml_reason;
  std::map<int, GpuSampler> gpu_samplers;
  if (!info.gpu_usable()) {
    nvml_reason = fmt::format("no usable GPU: {}", info.gpu_unavailable_reason.empty() ? std::string("none found")
                                                                                       : info.gpu_unavailable_reason);
  } else if (!listing_only) {
    for (const int device : suite.devices()) {
      const system::GpuInfo* gpu = gpu_info(info, device);
      if (gpu == nullptr) continue;
      std::string reason;
      if (GpuSampler sampler = make_nvml_sampler(gpu->pci_bus_id, static_cast<unsigned>(device), reason)) {
        gpu_samplers.emplace(device, std::move(sampler));
      } else if (nvml_reason.empty()) {
        nvml_reason = reason;
      }
    }
  }
  // Read every 100 ms besides, while a benchmark keeps the GPU busy: whether the large
  // training step's GEMMs, 1.2x their planned time in the step on the H200, ran throttled.
  GpuConditionsLog gpu_conditions(std::move(gpu_samplers), nvml_reason, std::chrono::milliseconds(100));
  suite.set_start_observer([&suite, &gpu_conditions](const std::string& name) {
    const nlohmann::json* params = suite.params().find(name);
    gpu_conditions.on_benchmark(params ? params->value("family", std::string("?")) : std::string("?"),
                                params ? params->value("device", -1) : -1, name);
  });
  // Ctrl-C winds the run down: the benchmark in flight ends, the rest are skipped and the
  // report of what ran is written; a second one stops at once (core/interrupts.hpp).
  if (!listing_only) defer_first_interrupt();
  benchmark::RunSpecifiedBenchmarks(&collector);
  suite.set_watch(nullptr);
  watch.reset();
  gpu_conditions.finish();
  progress.end();
  if (listing_only) {  // the list is all the run gives: one lost to a full or closed stdout is an error
    std::cout.flush();
    if (!std::cout || std::fflush(stdout) != 0) {
      fmt::print(stderr, "hdbench: --benchmark_list_tests: cannot write the list to standard output\n");
      return 1;
    }
    return 0;
  }
  // A pattern Google Benchmark could not compile (it said so above): nothing ran.
  if (collector.benchmarks().empty() && !filter.empty() && !full_names.empty()) {
    fmt::print(stderr, "hdbench: nothing ran: no benchmark was selected; no report written\n");
    return 2;
  }

  nlohmann::json hdbench_context = run_context(info, command_line, started_at);
  hdbench_context["system"]["cpu"] = to_json(cpu);
  hdbench_context["system"]["cpu"]["fp32_roof"] = to_json(this_machine_fma_roof());
  hdbench_context["cpu_blas"] = cpu_blas_report(command_line.cpu_blas);
  hdbench_context["gpu_conditions"] = gpu_conditions.to_json();
  nlohmann::json report;
  report["context"] = collector.context();
  report["context"]["hdbench"] = hdbench_context;
  report["benchmarks"] = collector.benchmarks();
  report["derived"] = suite.derive(collector.benchmarks());
  if (const nlohmann::json status = trace->finish(collector.benchmarks(), report["derived"]); !status.is_null()) {
    report["context"]["hdbench"]["trace"] = status;
  }
  const std::string written = write_report_file(options.out_path, default_out, report);
  for (const std::string& warning : gpu_throttle_warnings(hdbench_context["gpu_conditions"]))
    fmt::print(stderr, "Warning: GPU {}\n", warning);
  const int code = print_summary(report["benchmarks"], report["derived"], written, suite);
  if (const int signal_number = interrupt_signal(); signal_number != 0) {
    fmt::print(stderr, "hdbench: interrupted: the benchmarks after the one in flight were skipped; exit code {}\n",
               128 + signal_number);
    return 128 + signal_number;
  }
  return code;
}

}  // namespace
}  // namespace hdbench

int main(int argc, char** argv) {
  try {
    return hdbench::run(argc, argv);
  } catch (const hdbench::UsageError& error) {
    std::fprintf(stderr, "hdbench: %s\n", error.what());
    return 2;
  } catch (const std::exception& error) {
    std::fprintf(stderr, "hdbench: error: %s\n", error.what());
    return 1;
  }
}
