// The dataparallel family and what hdbench_mpi needs of it: its options, and the
// cases they make.
#pragma once

#include <memory>
#include <vector>

#include "core/family.hpp"
#include "dataparallel/cpu_step.hpp"
#include "dataparallel/dataparallel_options.hpp"

namespace hdbench {

std::unique_ptr<Family> make_dataparallel_family();
// The family's options (throws std::invalid_argument if `family` is another one).
const DataParallelOptions& dataparallel_options(const Family& family);
// Models × global batches, in run order.
std::vector<DataParallelCase> data_parallel_cases(const DataParallelOptions& options, std::uint64_t seed);

}  // namespace hdbench
