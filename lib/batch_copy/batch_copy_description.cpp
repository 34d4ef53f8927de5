#include "batch_copy/batch_copy_description.hpp"

namespace hdbench {

FamilyDescription batch_copy_description() {
  FamilyDescription d{.name = "batch_copy", .kind_param = "method", .nvtx = kBatchCopyNvtx};
  d.params_note = "every time is the host's, from the first call to the stream's end";
  d.params = {
      {"method",
       ParamType::string,
       "`per_tensor`: one `cudaMemcpyAsync` per tensor; `packed`: the tensors gathered on the host into one pinned "
       "buffer, then one copy, the gather timed with it; `batch_api`: `cudaMemcpyBatchAsync`, skipped with the reason "
       "where the runtime or driver predates CUDA 12.8; `mapped_kernel`: one kernel gathering over mapped memory; "
       "`one_copy`: one copy of a buffer already packed, the floor",
       {kEveryRun}},
      {"tensors", ParamType::integer, "K, the tensors in the batch", {kEveryRun}},
      {"bytes", ParamType::integer, "the payload, all K tensors", {kEveryRun}},
      {"mix", ParamType::string, "the tensor sizes: tensor i is 256 B × 4^(i mod 8), 256 B to 4 MiB"},
      {"memory", ParamType::string, "`pinned`: each tensor in its own pinned buffer"},
      {"device", ParamType::integer, "the GPU's index"},
  };
  // set_bandwidth_counters' figures; batch_us, not the bandwidth, is what every run must have.
  for (CounterDescription& c : bandwidth_counters("the payload / the batch's median time")) {
    c.required.clear();
    d.counters.push_back(std::move(c));
  }
  d.counters.insert(
      d.counters.end(),
      {
          {"batch_us",
           "median time per batch (the host's, first call to the stream's end)",
           Better::lower,
           {kEveryRun}},
          {"per_tensor_us", "`batch_us` over K", Better::lower},
          {"payload_bytes", "the K tensors' bytes"},
          {"gather_us", "`packed`: the median of the host gather into the pinned buffer", Better::lower, {"packed"}},
          {"copy_us",
           "`packed`: the median of the rest of the batch's time (the one copy and the wait)",
           Better::lower,
           {"packed"}},
      });
  for (CounterDescription& c : stopping_rule_counters()) d.counters.push_back(std::move(c));
  d.noise_groups = {"method"};
  label_values(d, "method",
               {{"per_tensor", "one copy per tensor"},
                {"packed", "gather + one copy"},
                {"batch_api", "cudaMemcpyBatchAsync"},
                {"mapped_kernel", "mapped gather kernel"},
                {"one_copy", "one copy, already packed"}});
  return d;
}

}  // namespace hdbench
