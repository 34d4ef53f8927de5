// hdbench_mpi: the data-parallel MLP step over MPI ranks, launched by the user's MPI
// (`mpirun -np N hdbench_mpi ...`, `srun hdbench_mpi ...`); hdbench itself never
// initialises MPI, so it runs unchanged without a launcher. Takes the same
// --hdbench_* flags as hdbench (the dataparallel family's and --hdbench_out,
// --hdbench_seed, --hdbench_preset). Rank 0 writes one report (atomically) with every
// rank's figures; other ranks write nothing. Every collective has a deadline
// (--hdbench_dp_timeout_s): a rank that dies or stalls ends the run with a message.
// The GPU step takes one rank per GPU, each rank the GPU of its node's local rank.
// Exit codes as hdbench: 0 done, 1 a check failed or the run broke, 2 bad usage; a
// collective past its deadline aborts with 3 (mpirun may report its own code).
#include <fmt/format.h>
#include <mpi.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <functional>

#include "core/case_id.hpp"
#include "core/cuda.hpp"
#include "core/report.hpp"
#include "core/system.hpp"
#include "dataparallel.hpp"
#include "dataparallel/gpu_step.hpp"
#include "families.hpp"
#include "mpi_communicator.hpp"
#include "run_start.hpp"

namespace hdbench {
namespace {

// A skipped case's entry: the same fields as any entry of hdbench's (core/report).
nlohmann::json skipped_entry(const CaseId& id, int steps, const std::string& reason) {
  return report_entry({.name = id.name(),
                       .params = id.params(),
                       .iterations = steps,
                       .error_message = std::string(kSkippedPrefix) + reason});
}

// A case that ran: its counters (the step time is the entry's time), every rank's
// figures and the checks across ranks.
nlohmann::json entry(const CaseId& id, int steps, const nlohmann::json& result) {
  const nlohmann::json& counters = result["counters"];
  nlohmann::json e = report_entry({.name = id.name(),
                                   .params = id.params(),
                                   .iterations = steps,
                                   .real_time = counters["step_us"].get<double>(),
                                   .cpu_time = counters["step_us"].get<double>(),
                                   .counters = counters,
                                   .error_message = result.value("error_message", std::string())});
  e["per_rank"] = result["per_rank"];
  e["checks"] = result["checks"];
  return e;
}

// Every rank takes GPU local_rank of its node; "" when all can, else why not (the same
// answer on every rank: a rank without a GPU of its own fails the GPU cases for all).
std::string gpu_unavailable_reason(dataparallel::MpiCommunicator& ranks) {
  int gpus = 0;
  const cudaError_t status = cudaGetDeviceCount(&gpus);
  if (status != cudaSuccess) gpus = 0;
  double problem[2] = {gpus == 0 ? 1.0 : 0.0, ranks.local_rank() >= gpus && gpus > 0 ? 1.0 : 0.0};
  ranks.allreduce_max(problem, "check that every rank has a GPU");
  if (problem[0] > 0) {
    return "a rank has no usable GPU (cudaGetDeviceCount: " +
           std::string(status == cudaSuccess ? "0 devices" : cudaGetErrorString(status)) + ")";
  }
  if (problem[1] > 0) return "more ranks on a node than it has GPUs: the GPU step takes one GPU per rank";
  HDBENCH_CUDA_CHECK(cudaSetDevice(ranks.local_rank()));
  return "";
}

int run(int argc, char** argv, dataparallel::MpiCommunicator& ranks) {
  install_interrupt_cleanup();
  // The ranks must agree on the seed: rank 0's random one unless --hdbench_seed.
  std::uint64_t seed = random_seed();
  ranks.broadcast(std::as_writable_bytes(std::span<std::uint64_t>(&seed, 1)), "broadcast of the seed");
  const std::vector<std::string> args(argv + 1, argv + argc);
  const std::unique_ptr<CommandLine> line = parse_command_line(args, this_machine_limits(), seed);
  if (line->flags.help_requested()) {
    if (ranks.is_root()) fmt::print("{}", line->flags.help());
    return 0;
  }
  if (!line->passthrough.empty()) {
    throw UsageError(fmt::format("takes only --hdbench_* flags; not one: {}", line->passthrough.front()));
  }
  // hdbench's flags that this program would take and then ignore: said, not ignored.
  for (const std::string_view name :
       {"families", "list_cases", "describe_families", "trace", "trace_api", "trace_budget"}) {
    if (line->flags.was_given(name)) {
      throw UsageError(
          fmt::format("--hdbench_{}: hdbench's flag; hdbench_mpi runs the dataparallel family only "
                      "(its --hdbench_dp_* flags)",
                      name));
    }
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
  bool default_out = false;
  std::string out_problem;  // rank 0's: only it writes the report
  if (ranks.is_root()) {
    default_out = options.out_path.empty();
    if (default_out) options.out_path = default_report_path("hdbench_mpi", system::discover());
    try {
      check_out_path(options.out_path, "--hdbench_out");
    } catch (const std::exception& error) {
      out_problem = error.what();
    }
  }
  // Every rank learns of it and ends with 2 together: MPI_Abort's page of text buried the reason.
  double out_unusable[1] = {out_problem.empty() ? 0.0 : 1.0};
  ranks.allreduce_max(out_unusable, "share whether the report can be written");
  if (out_unusable[0] > 0) throw UsageError(out_problem);
  if (ranks.is_root()) {
    fmt::print("hdbench_mpi: {} ranks ({}) on {}\n", ranks.size(), ranks.describe(), fmt::join(hosts, ", "));
  }
  nlohmann::json benchmarks = nlohmann::json::array();
  bool failed = false;
  // One case on every rank: its entry on rank 0, with a line on the console.
  const auto run_case = [&](const CaseId& id, int steps, const std::function<nlohmann::json()>& run_it) {
    const std::string& name = id.name();
    nlohmann::json result;
    try {
      result = run_it();
    } catch (const std::exception& error) {
      ranks.abort(fmt::format("rank {} of {}: {}: {}", ranks.rank(), ranks.size(), name, error.what()), 1);
    }
    if (!ranks.is_root()) return;
    benchmarks.push_back(entry(id, steps, result));
    const auto& k = result["counters"];
    if (result.contains("error_message")) {
      failed = true;
      fmt::print("FAILED {}: {}\n", name, result["error_message"].get<std::string>());
    } else {
      const std::string bus = k.contains("allreduce_busbw_GB/s")
                                  ? fmt::format("{:.3f} GB/s bus", k["allreduce_busbw_GB/s"].get<double>())
                                  : std::string("one rank: no link crossed");
      fmt::print("{}: step {:.1f} us, all-reduce {:.1f} us ({}), one rank {:.1f} us, efficiency {:.2f}\n", name,
                 k["step_us"].get<double>(), k["allreduce_us"].get<double>(), bus, k["one_rank_step_us"].get<double>(),
                 k["scaling_efficiency"].get<double>());
    }
    std::fflush(stdout);
  };
  if (dp.cpu_step) {
    for_each_cpu_step_case(dp, options.seed, "mpi", ranks.size(), [&](const CaseId& id, const DataParallelCase& c) {
      run_case(id, c.steps, [&] { return run_data_parallel(ranks, c); });
    });
  }
  if (dp.gpu_step) {
    const std::string unavailable = gpu_unavailable_reason(ranks);
    // Each rank's device is in per_rank.
    for_each_gpu_step_case(dp, options.seed, ranks.size(), [&](const CaseId& id, const GpuDataParallelCase& g) {
      if (!unavailable.empty()) {
        if (ranks.is_root()) {
          benchmarks.push_back(skipped_entry(id, g.step.steps, unavailable));
          fmt::print("SKIPPED {}: {}\n", id.name(), unavailable);
        }
        return;
      }
      run_case(id, g.step.steps, [&] { return run_gpu_data_parallel(ranks, g); });
    });
  }
  if (!ranks.is_root()) return 0;

  const system::SystemInfo info = system::discover();
  nlohmann::json hdbench_context = run_context(info, *line, started_at);
  hdbench_context["mpi"] = {{"ranks", ranks.size()},
                            {"library", ranks.describe()},
                            {"launcher", dataparallel::detect_launcher()},
                            {"hosts", hosts}};
  report["context"] = {{"date", started_at},
                       {"host_name", hostname},
                       {"executable", argv[0]},
                       {"num_cpus", info.host.logical_cores},
                       {"hdbench", hdbench_context}};
  report["benchmarks"] = benchmarks;
  report["derived"] = nlohmann::json::object();
  fmt::print("Report: {}\n", write_report_file(options.out_path, default_out, report));
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
    hdbench::dataparallel::MpiCommunicator ranks(timeout_s > 0 ? timeout_s : 60.0);
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
