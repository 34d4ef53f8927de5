#include "strided/strided_description.hpp"

namespace hdbench {

FamilyDescription strided_description() {
  FamilyDescription d{.name = "strided", .kind_param = "method", .nvtx = kStridedNvtx};
  d.params_note = "each time is the host's, from the first call to the stream's end";
  d.params = {
      {"slice", ParamType::string, "`every_other_row`; `column_block`: the first half of the columns", {kEveryRun}},
      {"method",
       ParamType::string,
       "`memcpy2d`: `cudaMemcpy2DAsync`; `pack_then_copy`: a host pack into pinned memory, as `tensor.contiguous()`, "
       "then one copy, the pack timed with it; `mapped_kernel`: a kernel reading the rows over mapped memory; "
       "`contiguous`: one copy of the same bytes already packed, the reference",
       {kEveryRun}},
      {"matrix", ParamType::string, "`ROWSxCOLS` of fp32, in pinned memory", {kEveryRun}},
      {"bytes", ParamType::integer, "of the slice", {kEveryRun}},
      {"rows", ParamType::integer, "rows of the slice"},
      {"row_bytes", ParamType::integer, "bytes of one row of the slice"},
      {"pitch_bytes", ParamType::integer, "from one row of the slice to the next in the matrix"},
      {"direction", ParamType::string, "`h2d`"},
      {"memory", ParamType::string, "`pinned`"},
      {"device", ParamType::integer, "the GPU's index"},
  };
  d.counters = bandwidth_counters("the slice's bytes / its median time, a pack included");
  d.counters.push_back({"pack_us", "`pack_then_copy`: the median time of the host pack alone", Better::lower});
  for (CounterDescription& c : stopping_rule_counters()) d.counters.push_back(std::move(c));
  d.noise_groups = {"method"};
  label_values(d, "slice", {{"every_other_row", "every other row"}, {"column_block", "half the columns"}});
  label_values(d, "method",
               {{"memcpy2d", "cudaMemcpy2DAsync"},
                {"pack_then_copy", "host pack + copy"},
                {"mapped_kernel", "mapped gather kernel"},
                {"contiguous", "contiguous (reference)"}});
  return d;
}

}  // namespace hdbench
