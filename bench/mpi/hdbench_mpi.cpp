// hdbench_mpi: the data-parallel MLP step over MPI ranks, launched by the user's MPI
// (`mpirun -np N hdbench_mpi ...`, `srun hdbench_mpi ...`); hdbench itself never
// initialises MPI, so it runs unchanged without a launcher. Takes the same
// --hdbench_* flags as hdbench (the dataparallel family's and --hdbench_out,
// --hdbench_seed, --hdbench_preset). Rank 0 writes one report (atomically) with every
// rank's figures; other ranks write nothing. Every collective has a deadline
// (--hdbench_dp_timeout_s): a rank that dies or stalls ends the run with a message.
// Exit codes as hdbench: 0 done, 1 a check failed or the run broke, 2 bad usage; a
// collective past its deadline aborts with 3 (mpirun may report its own code).
#include <fmt/format.h>
#include <mpi.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <random>
#include <thread>

#include "core/report.hpp"
#include "core/system.hpp"
#include "dataparallel.hpp"
#include "families.hpp"
#include "mpi_communicator.hpp"

namespace hdbench {
namespace {

std::string default_report_path(const std::string& hostname) {
  std::string host = hostname.empty() ? "host" : hostname;
  std::replace_if(
      host.begin(), host.end(), [](char ch) { return !std::isalnum(static_cast<unsigned char>(ch)) && ch != '-'; },
      '_');
  return fmt::format("reports/hdbench_mpi-{}-{}.json", host, local_time("%Y%m%d-%H%M%S"));
}

// A report entry shaped like hdbench's (report.cpp's run_to_json): counters at top
// level and under "counters", params, status, notes; plus every rank's figures.
nlohmann::json entry(const DataParallelCase& c, int ranks, const nlohmann::json& result) {
  const std::string name = data_parallel_name(c, "mpi", ranks);
  nlohmann::json e = {{"name", name},
                      {"run_name", name},
                      {"run_type", "iteration"},
                      {"repetitions", 1},
                      {"iterations", c.steps},
                      {"time_unit", "us"},
                      {"params", data_parallel_params(c, "mpi", ranks)},
                      {"notes", nlohmann::json::array()}};
  const nlohmann::json& counters = result["counters"];
  e["real_time"] = counters["step_us"];
  e["cpu_time"] = counters["step_us"];
  e["counters"] = counters;
  for (const auto& [key, value] : counters.items()) e[key] = value;
  e["per_rank"] = result["per_rank"];
  e["checks"] = result["checks"];
  if (result.contains("error_message")) {
    e["status"] = "error";
    e["error_occurred"] = true;
    e["error_message"] = result["error_message"];
  } else {
    e["status"] = "ok";
  }
  return e;
}

int run(int argc, char** argv, scaleout::MpiCommunicator& ranks) {
  install_interrupt_cleanup();
  // The ranks must agree on the seed: rank 0's random one unless --hdbench_seed.
  std::uint64_t seed = std::random_device{}() * 0x9E3779B97F4A7C15ULL ^ std::random_device{}();
  ranks.broadcast(std::as_writable_bytes(std::span<std::uint64_t>(&seed, 1)), "broadcast of the seed");
  const std::vector<std::string> args(argv + 1, argv + argc);
  const OptionLimits limits{system::host_memory_total_bytes(),
                            static_cast<int>(std::max(1u, std::thread::hardware_concurrency()))};
  const std::unique_ptr<CommandLine> line = parse_command_line(args, limits, seed);
  if (line->flags.help_requested()) {
    if (ranks.is_root()) fmt::print("{}", line->flags.help());
    return 0;
  }
  if (!line->passthrough.empty()) {
    throw UsageError(fmt::format("takes only --hdbench_* flags; not one: {}", line->passthrough.front()));
  }
  const Family* family = nullptr;
  for (const auto& f : line->families) {
    if (f->names() == std::vector<std::string>{"dataparallel"}) family = f.get();
  }
  const DataParallelOptions& dp = dataparallel_options(*family);
  Options& options = line->options;

  char hostname[256] = {};
  gethostname(hostname, sizeof(hostname) - 1);
  const std::vector<std::string> hosts = ranks.gather_to_root(hostname, "gather of the ranks' hosts");
  nlohmann::json report;
  const std::string started_at = local_time("%Y-%m-%dT%H:%M:%S%z");
  if (ranks.is_root()) {
    if (options.out_path.empty()) options.out_path = default_report_path(hostname);
    try {
      check_writable(options.out_path);
    } catch (const std::exception& error) {
      ranks.abort(fmt::format("--hdbench_out: {}", error.what()), 2);
    }
    fmt::print("hdbench_mpi: {} ranks ({}) on {}\n", ranks.size(), ranks.describe(), fmt::join(hosts, ", "));
  }
  nlohmann::json benchmarks = nlohmann::json::array();
  bool failed = false;
  for (const DataParallelCase& c : data_parallel_cases(dp, options.seed)) {
    nlohmann::json result;
    try {
      result = run_data_parallel(ranks, c);
    } catch (const std::exception& error) {
      ranks.abort(fmt::format("rank {} of {}: {}: {}", ranks.rank(), ranks.size(),
                              data_parallel_name(c, "mpi", ranks.size()), error.what()),
                  1);
    }
    if (!ranks.is_root()) continue;
    benchmarks.push_back(entry(c, ranks.size(), result));
    const auto& k = result["counters"];
    const std::string name = benchmarks.back()["name"].get<std::string>();
    if (result.contains("error_message")) {
      failed = true;
      fmt::print("FAILED {}: {}\n", name, result["error_message"].get<std::string>());
    } else {
      fmt::print("{}: step {:.1f} us, all-reduce {:.1f} us ({:.3f} GB/s bus), one rank {:.1f} us, efficiency {:.2f}\n",
                 name, k["step_us"].get<double>(), k["allreduce_us"].get<double>(),
                 k["allreduce_busbw_GB/s"].get<double>(), k["one_rank_step_us"].get<double>(),
                 k["scaling_efficiency"].get<double>());
    }
    std::fflush(stdout);
  }
  if (!ranks.is_root()) return 0;

  const system::SystemInfo info = system::discover();
  nlohmann::json hdbench_context = build_info();
  hdbench_context["schema_version"] = kReportSchemaVersion;
  hdbench_context["system"] = system::to_json(info);
  hdbench_context["options"] = line->options_json();
  hdbench_context["started_at"] = started_at;
  hdbench_context["finished_at"] = local_time("%Y-%m-%dT%H:%M:%S%z");
  hdbench_context["mpi"] = {{"ranks", ranks.size()},
                            {"library", ranks.describe()},
                            {"launcher", scaleout::detect_launcher()},
                            {"hosts", hosts}};
  report["context"] = {{"date", started_at},
                       {"host_name", hostname},
                       {"executable", argv[0]},
                       {"num_cpus", info.host.logical_cores},
                       {"hdbench", hdbench_context}};
  report["benchmarks"] = benchmarks;
  report["derived"] = nlohmann::json::object();
  write_file_atomically(options.out_path, report.dump(2) + "\n");
  fmt::print("Report: {}\n", options.out_path);
  return failed ? 1 : 0;
}

}  // namespace
}  // namespace hdbench

int main(int argc, char** argv) {
  int provided = 0;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
  int code = 0;
  {
    double timeout_s = hdbench::DataParallelOptions{}.timeout_s;
    for (int i = 1; i < argc; ++i) {  // the deadline applies from the first collective on
      const std::string_view arg(argv[i]);
      if (arg.starts_with("--hdbench_dp_timeout_s=")) timeout_s = std::atof(argv[i] + 23);
    }
    hdbench::scaleout::MpiCommunicator ranks(timeout_s > 0 ? timeout_s : 60.0);
    try {
      code = hdbench::run(argc, argv, ranks);
    } catch (const hdbench::UsageError& error) {
      if (ranks.is_root()) std::fprintf(stderr, "hdbench_mpi: %s\n", error.what());
      code = 2;
    } catch (const std::exception& error) {
      ranks.abort(fmt::format("rank {} of {}: error: {}", ranks.rank(), ranks.size(), error.what()), 1);
    }
  }
  MPI_Finalize();
  return code;
}
