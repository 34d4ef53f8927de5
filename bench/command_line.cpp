#include "families.hpp"

namespace hdbench {

std::vector<std::string> CommandLine::family_names() const {
  std::vector<std::string> names;
  for (const auto& family : families) {
    for (const std::string& name : family->names()) names.push_back(name);
  }
  return names;
}

void CommandLine::register_selected(Suite& suite) const {
  for (const auto& family : families) {
    for (const std::string& name : family->names()) {
      if (options.runs_family(name)) family->register_benchmarks(suite, name);
    }
  }
}

nlohmann::json CommandLine::families_json(bool selected_only) const {
  nlohmann::json described = nlohmann::json::object();
  for (const auto& family : families) {
    for (const std::string& name : family->names()) {
      if (!selected_only || options.runs_family(name)) described[name] = to_json(family->describe(name));
    }
  }
  return described;
}

namespace {

std::unique_ptr<CommandLine> declare_all(const OptionLimits& limits, std::uint64_t random_seed) {
  auto line = std::make_unique<CommandLine>();
  line->families = make_families(line->data, line->devices);
  declare_core_flags(line->flags, line->options, line->family_names(), random_seed);
  for (const auto& family : line->families) family->declare_flags(line->flags, limits);
  declare_data_flags(line->flags, line->data);
  declare_cpu_blas_flags(line->flags, line->cpu_blas);
  trace::declare_trace_flags(line->flags, line->trace);
  declare_device_flags(line->flags, line->devices);
  return line;
}

}  // namespace

std::unique_ptr<CommandLine> parse_command_line(const std::vector<std::string>& args, const OptionLimits& limits,
                                                std::uint64_t random_seed) {
  auto line = declare_all(limits, random_seed);
  line->passthrough = line->flags.parse(args);
  return line;
}

std::string options_help(const OptionLimits& limits) { return declare_all(limits, 0)->flags.help(); }

}  // namespace hdbench
