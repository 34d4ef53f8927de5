#include "device_local/device_local_description.hpp"

namespace hdbench {

FamilyDescription device_local_description() {
  FamilyDescription d{.name = "device_local", .nvtx = kDeviceLocalNvtx};
  d.params = {
      {"engine",
       ParamType::string,
       "`copy`: `cudaMemcpyAsync` device to device; `sm`: an SM copy kernel, 8 blocks per SM",
       {kEveryRun}},
      {"bytes", ParamType::integer, "copied; sizes below 16 MiB are timed in groups of copies", {kEveryRun}},
      {"direction", ParamType::string, "`d2d`"},
      {"memory", ParamType::string, "`device`"},
      {"device", ParamType::integer, "the GPU's index"},
  };
  d.counters = bandwidth_counters("bytes copied / median sample time, so the memory moves twice as many");
  for (CounterDescription& c : stopping_rule_counters()) d.counters.push_back(std::move(c));
  return d;
}

}  // namespace hdbench
