// The dataparallel family and what hdbench_mpi needs of it: its options, and the
// cases they make, named and with their params from the axes (core/case_grid.hpp).
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>

#include "core/case_id.hpp"
#include "core/family.hpp"
#include "dataparallel/cpu_step.hpp"
#include "dataparallel/dataparallel_options.hpp"
#include "dataparallel/gpu_step.hpp"

namespace hdbench {

std::unique_ptr<Family> make_dataparallel_family();
// The family's options (throws std::invalid_argument if `family` is another one).
const DataParallelOptions& dataparallel_options(const Family& family);
// The CPU step's cases, models × global batches in run order, for `communicator`
// ("self": hdbench's one rank; "mpi") over `ranks`:
// "dataparallel/cpu/<communicator>/<model>/batch:<B>/ranks:<N>".
void for_each_cpu_step_case(const DataParallelOptions& options, std::uint64_t seed, const std::string& communicator,
                            int ranks, const std::function<void(const CaseId&, const DataParallelCase&)>& body);
// The GPU step's cases, models × global batches × overlap (bucketed, then none), over
// `ranks`, one a GPU: "dataparallel/gpu/nccl/<model>/batch:<B>/ranks:<N>/overlap:bucketed|none",
// without the device (hdbench's suite adds each copy's).
void for_each_gpu_step_case(const DataParallelOptions& options, std::uint64_t seed, int ranks,
                            const std::function<void(const CaseId&, const GpuDataParallelCase&)>& body);

}  // namespace hdbench
