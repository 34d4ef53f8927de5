#include "core/family_description.hpp"

#include <fmt/format.h>

#include <stdexcept>

namespace hdbench {

const char* to_string(ParamType type) noexcept {
  switch (type) {
    case ParamType::string:
      return "string";
    case ParamType::integer:
      return "integer";
    case ParamType::number:
      return "number";
    case ParamType::boolean:
      return "boolean";
    case ParamType::integer_or_string:
      return "integer or string";
    case ParamType::integer_list:
      return "list of integers";
    case ParamType::integer_or_list:
      return "integer or list of integers";
  }
  return "string";
}

const char* to_string(Better better) noexcept {
  switch (better) {
    case Better::none:
      return "none";
    case Better::higher:
      return "higher";
    case Better::lower:
      return "lower";
  }
  return "none";
}

nlohmann::json to_json(const FamilyDescription& family) {
  // Lists, not objects keyed by name: a reader meets them in the order declared (the
  // kind's param first), which a JSON object, written with sorted keys, would lose.
  nlohmann::json params = nlohmann::json::array();
  for (const ParamDescription& p : family.params) {
    nlohmann::json param = {
        {"key", p.key}, {"type", to_string(p.type)}, {"meaning", p.meaning}, {"required", p.required}};
    if (!p.values.empty()) {
      param["values"] = nlohmann::json::array();
      for (const ValueLabel& v : p.values) param["values"].push_back({{"value", v.value}, {"label", v.label}});
    }
    params.push_back(std::move(param));
  }
  nlohmann::json counters = nlohmann::json::array();
  for (const CounterDescription& c : family.counters) {
    counters.push_back(
        {{"name", c.name}, {"meaning", c.meaning}, {"better", to_string(c.better)}, {"required", c.required}});
  }
  nlohmann::json j = {{"kind_param", family.kind_param},
                      {"nvtx",
                       {{"category", family.nvtx.id()},
                        {"name", family.nvtx.name},
                        {"colour", fmt::format("#{:06X}", family.nvtx.argb & 0xFFFFFFu)}}},
                      {"params", params},
                      {"counters", counters}};
  if (!family.params_note.empty()) j["params_note"] = family.params_note;
  j["noise_groups"] = family.noise_groups;
  return j;
}

void label_values(FamilyDescription& family, const std::string& key, std::vector<ValueLabel> values) {
  for (ParamDescription& p : family.params) {
    if (p.key == key) {
      p.values = std::move(values);
      return;
    }
  }
  throw std::logic_error(fmt::format("the {} family describes no param {} to label", family.name, key));
}

std::vector<CounterDescription> bandwidth_counters(const std::string& bandwidth_meaning) {
  return {
      {"bandwidth_GB/s", bandwidth_meaning, Better::higher, {kEveryRun}},
      {"bandwidth_best_GB/s", "bytes / the fastest sample", Better::higher},
      {"latency_us", "the median time of one sample", Better::lower},
      {"cv_percent", "coefficient of variation of the samples", Better::lower},
      {"samples", "how many samples the figures come from; with one there is no noise figure", Better::none},
      {"bytes_per_second", "Google's own rate counter (bytes / mean time)", Better::higher},
  };
}

std::vector<CounterDescription> stopping_rule_counters() {
  return {
      {"noise_percent",
       "the noise the stopping rule stopped on: the half-width of the distribution-free ~95% confidence interval of "
       "the median, in percent of the median; 0 with one sample or identical ones",
       Better::lower},
      {"stdev_percent", "sample stdev / mean of the same samples, in percent", Better::lower},
      {"noise_target_percent", "the rule's target (`--hdbench_noise_target`)", Better::none},
      {"stopped_at_timeout",
       "1 when `--hdbench_max_seconds` of sampling passed before the rule was met, else 0; absent when the rule is off",
       Better::lower},
  };
}

}  // namespace hdbench
