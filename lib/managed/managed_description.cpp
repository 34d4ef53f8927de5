#include "managed/managed_description.hpp"

namespace hdbench {

FamilyDescription managed_description() {
  FamilyDescription d{.name = "managed", .nvtx = kManagedNvtx};
  d.params_note = "each sample first puts every page back where the other side wrote it (untimed)";
  d.params = {
      {"direction",
       ParamType::string,
       "`h2d`: a kernel reads a buffer the host wrote; `d2h`: the host reads one the GPU wrote",
       {kEveryRun}},
      {"variant",
       ParamType::string,
       "`demand`: pages migrate on the faults of the reader, the kernel or a host touch of each 4 KiB page, which is "
       "what is timed; `prefetch`: `cudaMemPrefetchAsync` alone is timed; `read_mostly`, `preferred_gpu`, "
       "`accessed_by_gpu`: the kernel's read under that memory advice, h2d only",
       {kEveryRun}},
      {"bytes", ParamType::integer, "of the managed buffer", {kEveryRun}},
      {"memory", ParamType::string, "`managed`"},
      {"device", ParamType::integer, "the GPU's index"},
  };
  d.counters = bandwidth_counters("bytes / the migration's median time");
  for (CounterDescription& c : stopping_rule_counters()) d.counters.push_back(std::move(c));
  d.noise_groups = {"variant"};
  label_values(d, "variant",
               {{"demand", "demand faults"},
                {"prefetch", "cudaMemPrefetchAsync"},
                {"read_mostly", "read-mostly advice"},
                {"preferred_gpu", "preferred location GPU"},
                {"accessed_by_gpu", "accessed-by-GPU advice"}});
  return d;
}

}  // namespace hdbench
