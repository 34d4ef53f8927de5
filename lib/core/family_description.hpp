// What a family is, said once beside the family: the names its runs carry in the
// report, each param and counter with its type or unit, what it means and which way
// is better, and its NVTX category. hdbench writes the descriptions of the families it
// ran into the report (context.hdbench.families.<name>), so the report tools check and
// label a report from the report itself, and docs/report-format.md's params and
// counters tables are generated from them (tools/report_format_doc.py), as nvbench's
// JSON carries each axis's name, type and description.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "core/nvtx.hpp"

namespace hdbench {

enum class ParamType { string, integer, number, boolean, integer_or_string, integer_list, integer_or_list };
const char* to_string(ParamType type) noexcept;

// Which way a counter is better; none for counts, settings and shares with no good side.
enum class Better { none, higher, lower };
const char* to_string(Better better) noexcept;

// The runs a param or counter is required in: every successful run of the family
// (kEveryRun), only those of some kinds (the family's kind_param values), or none.
inline constexpr const char* kEveryRun = "*";

// A value of a named param and how figures and tables write it ("per_tensor": "one copy
// per tensor"), in reading order.
struct ValueLabel {
  std::string value;
  std::string label;
};

struct ParamDescription {
  std::string key;
  ParamType type = ParamType::string;
  std::string meaning;                     // Markdown, as the docs show it
  std::vector<std::string> required = {};  // kEveryRun or kinds; empty: optional
  std::vector<ValueLabel> values = {};     // a named param's values, in reading order, with their labels
};

struct CounterDescription {
  std::string name;  // with its unit: bandwidth_GB/s, latency_us, samples/s
  std::string meaning;
  Better better = Better::none;
  std::vector<std::string> required = {};  // as ParamDescription::required
};

struct FamilyDescription {
  std::string name;                    // params.family of its runs
  std::string kind_param = "variant";  // the param that splits its runs into kinds
  nvtx::Category nvtx;                 // its ranges' category and colour
  std::string params_note = {};        // one line after the params (e.g. "each time is the host's")
  // The params that split its runs into groups whose noise differs for one cause (pageable
  // copies go through the driver's staging; demand faults are noisier than DMA copies).
  std::vector<std::string> noise_groups = {};
  std::vector<ParamDescription> params = {};
  std::vector<CounterDescription> counters = {};
};

// Gives `key`'s values their labels (std::logic_error when `family` has no such param).
void label_values(FamilyDescription& family, const std::string& key, std::vector<ValueLabel> values);

// context.hdbench.families.<name>: {kind_param, nvtx: {category, name, colour}, params_note,
// noise_groups, params: [{key, type, meaning, required, values: [{value, label}]}],
// counters: [{name, meaning, better, required}]}
nlohmann::json to_json(const FamilyDescription& family);

// What several families share, declared once: the figures set_bandwidth_counters
// writes, and those of the stopping rule every sampled benchmark writes.
std::vector<CounterDescription> bandwidth_counters(const std::string& bandwidth_meaning);
std::vector<CounterDescription> stopping_rule_counters();

}  // namespace hdbench
