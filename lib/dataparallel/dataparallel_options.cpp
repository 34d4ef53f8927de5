#include "dataparallel/dataparallel_options.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "core/axis.hpp"
#include "core/option_values.hpp"

namespace hdbench {

void declare_dataparallel_flags(FlagParser& flags, DataParallelOptions& o, const OptionLimits& limits,
                                std::function<void(std::string_view flag, std::string_view model)> check_model) {
  const int max_threads = std::max(256, limits.hardware_threads * 4);
  flags.group("dataparallel", "data-parallel MLP step over MPI ranks (hdbench_mpi under mpirun/srun; one rank here)");
  declare_axis<std::string>(flags, o.models,
                            {.flag = "dp_models",
                             .value_help = "LIST",
                             .description = "MLP widths of the data-parallel step (default 784x32x10)",
                             .parse =
                                 [check_model](auto flag, auto v) {
                                   std::vector<std::string> models;
                                   for (std::string_view item : split(v, ',')) {
                                     check_model(flag, item);
                                     models.emplace_back(item);
                                   }
                                   return models;
                                 },
                             .report_field = "dp_models"});
  declare_axis<int>(flags, o.batches,
                    {.flag = "dp_batches",
                     .value_help = "LIST",
                     .description = "global batch sizes, split evenly over the ranks, 1..1048576 (default 256,1024)",
                     .parse = [](auto flag, auto v) { return parse_int_list(flag, v, 1, 1 << 20); },
                     .quick = std::vector<int>{256},
                     .report_field = "dp_batches"});
  flags.add("dp_steps", "N", "timed steps per batch size after one warm-up step, 1..100000 (default 20)",
            [&o](auto flag, auto v) { o.steps = parse_one_int(flag, v, 1, 100000); });
  flags.add("dp_threads", "N", "CPU threads per rank (OpenBLAS and element-wise) (default 1)",
            [&o, max_threads](auto flag, auto v) { o.threads = parse_one_int(flag, v, 1, max_threads); });
  flags.add("dp_timeout_s", "S",
            "deadline of every collective (other ranks wait through rank 0's one-rank reference run too); "
            "a rank that misses it fails the run, 0.1..86400 (default 60)",
            [&o](auto flag, auto v) {
              o.timeout_s = parse_one_number(flag, v, 0.1, 86400.0, "one number of seconds from 0.1 to 86400");
            });
  flags.add(
      "dp_tolerance", "T",
      "parameters after the run vs one rank on the combined batch: |a-b| <= T + T*|b|, 1e-9..1 (default 1e-4)",
      [&o](auto flag, auto v) { o.tolerance = parse_one_number(flag, v, 1e-9, 1.0, "one number from 1e-9 to 1"); });
  declare_axis<std::size_t>(flags, o.nccl_bytes,
                            {.flag = "dp_nccl_bytes",
                             .value_help = "LIST",
                             .description = "NCCL all-reduce sizes (GPU), e.g. 1M,64M (default 1MiB,64MiB)",
                             .parse = [](auto flag, auto v) { return parse_size_list(flag, v); },
                             .quick = std::vector<std::size_t>{std::size_t{1} << 20},
                             .report_field = "dp_nccl_bytes"});
  declare_axis<int>(flags, o.nccl_buckets,
                    {.flag = "dp_nccl_buckets",
                     .value_help = "LIST",
                     .description = "buckets the NCCL all-reduce is split into, 1..1024 (default 1,4)",
                     .parse = [](auto flag, auto v) { return parse_int_list(flag, v, 1, 1024); },
                     .report_field = "dp_nccl_buckets"});
  flags.add(
      "dp_processors", "LIST", "cpu (MPI_Allreduce / one rank), gpu (one rank per GPU, NCCL) (default both)",
      [&o](auto flag, auto v) {
        o.cpu_step = o.gpu_step = false;
        for (std::string_view item : split(v, ',')) {
          if (item == "cpu") {
            o.cpu_step = true;
          } else if (item == "gpu") {
            o.gpu_step = true;
          } else {
            throw UsageError(fmt::format("--hdbench_{}: '{}' is not a processor; accepted: cpu, gpu", flag, item));
          }
        }
      });
  flags.add("dp_bucket_bytes", "SIZE",
            "gradient bucket of the GPU step's overlapped all-reduce, 1K..1G (default 25M, DDP's bucket_cap_mb)",
            [&o](auto flag, auto v) {
              const std::vector<std::size_t> sizes = parse_size_list(flag, v);
              if (sizes.size() != 1 || sizes[0] < 1024 || sizes[0] > (std::size_t{1} << 30)) {
                throw UsageError(fmt::format("--hdbench_{}: '{}' is not one size from 1K to 1G", flag, v));
              }
              o.bucket_bytes = sizes[0];
            });
  flags.add_check([&o, &flags] { flags.apply_preset("dp_steps", o.steps, 5, o.steps); });
  flags.add_report([&o](nlohmann::json& j) {
    j["dp_steps"] = o.steps;
    j["dp_threads"] = o.threads;
    j["dp_timeout_s"] = o.timeout_s;
    j["dp_tolerance"] = o.tolerance;
    j["dp_processors"] = nlohmann::json::array();
    if (o.cpu_step) j["dp_processors"].push_back("cpu");
    if (o.gpu_step) j["dp_processors"].push_back("gpu");
    j["dp_bucket_bytes"] = o.bucket_bytes;
  });
}

}  // namespace hdbench
