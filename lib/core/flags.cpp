#include "core/flags.hpp"

#include <algorithm>

namespace hdbench {
namespace {

constexpr std::string_view kPrefix = "--hdbench_";

}  // namespace

const char* to_string(Preset preset) {
  switch (preset) {
    case Preset::quick:
      return "quick";
    case Preset::standard:
      return "default";
    case Preset::full:
      return "full";
  }
  return "default";
}

void check_sizes_fit(std::string_view flag, const std::vector<std::size_t>& sizes, const OptionLimits& limits) {
  if (limits.host_memory_bytes == 0) return;
  for (std::size_t size : sizes) {
    if (size > limits.host_memory_bytes) {
      throw UsageError(
          fmt::format("--hdbench_{}: {} is larger than this machine's memory ({}); accepted: sizes up to {}", flag,
                      format_size(size), format_size(limits.host_memory_bytes), format_size(limits.host_memory_bytes)));
    }
  }
}

FlagParser::FlagParser() {
  group("general");
  add("help", "", "print this list and exit", nullptr);  // handled by parse() itself
}

void FlagParser::group(std::string title, std::string description) {
  groups_.push_back({std::move(title), std::move(description)});
}

void FlagParser::add(std::string name, std::string value_help, std::string description, Handler handler) {
  if (find(name) != nullptr) throw std::logic_error("flag --hdbench_" + name + " is declared twice");
  flags_.push_back(
      {std::move(name), std::move(value_help), std::move(description), groups_.size() - 1, std::move(handler)});
}

void FlagParser::add_check(std::function<void()> check) { checks_.push_back(std::move(check)); }

void FlagParser::add_report(std::function<void(nlohmann::json&)> write) { reports_.push_back(std::move(write)); }

const FlagParser::Flag* FlagParser::find(std::string_view name) const {
  const auto it = std::find_if(flags_.begin(), flags_.end(), [&](const Flag& f) { return f.name == name; });
  return it == flags_.end() ? nullptr : &*it;
}

std::vector<std::string> FlagParser::parse(const std::vector<std::string>& args) {
  std::vector<std::string> passthrough;
  for (const std::string& arg : args) {
    const std::string_view text = arg;
    if (!text.starts_with(kPrefix)) {
      passthrough.push_back(arg);
      continue;
    }
    given_.push_back(arg);
    const std::string_view body = text.substr(kPrefix.size());
    const std::size_t equals = body.find('=');
    const std::string_view name = body.substr(0, equals);
    if (name == "help") {
      if (equals != std::string_view::npos) throw UsageError("--hdbench_help takes no value");
      help_ = true;
      continue;
    }
    const Flag* flag = find(name);
    if (flag == nullptr) {
      std::vector<std::string> known;
      for (const Flag& f : flags_) known.push_back(fmt::format("--hdbench_{}", f.name));
      throw UsageError(
          fmt::format("unknown flag '{}'; hdbench's flags are: {} (see --hdbench_help)", arg, fmt::join(known, ", ")));
    }
    if (equals == std::string_view::npos) {
      throw UsageError(fmt::format("--hdbench_{} needs a value: --hdbench_{}=VALUE (see --hdbench_help)", name, name));
    }
    flag->handler(name, body.substr(equals + 1));
    given_names_.emplace_back(name);
  }
  passthrough_ = passthrough;
  for (const auto& check : checks_) check();
  return passthrough;
}

bool FlagParser::was_given(std::string_view name) const {
  return std::find(given_names_.begin(), given_names_.end(), name) != given_names_.end();
}

std::vector<std::string> FlagParser::names() const {
  std::vector<std::string> names;
  for (const Flag& f : flags_) names.push_back(f.name);
  return names;
}

std::string FlagParser::help() const {
  std::string text = "hdbench flags (Google Benchmark's --benchmark_* flags work as well; see --help):\n";
  for (std::size_t g = 0; g < groups_.size(); ++g) {
    if (std::none_of(flags_.begin(), flags_.end(), [&](const Flag& f) { return f.group == g; })) continue;
    text += groups_[g].description.empty() ? fmt::format("\n{}:\n", groups_[g].title)
                                           : fmt::format("\n{} ({}):\n", groups_[g].title, groups_[g].description);
    for (const Flag& f : flags_) {
      if (f.group != g) continue;
      const std::string flag = f.value_help.empty() ? fmt::format("--hdbench_{}", f.name)
                                                    : fmt::format("--hdbench_{}={}", f.name, f.value_help);
      text += fmt::format("  {:<34} {}\n", flag, f.description);
    }
  }
  text +=
      "\nSizes use binary multiples: 4K = 4096 bytes, 1G = 2^30 bytes. GB/s in results means 1e9 bytes/s.\n"
      "Each benchmark samples until the median's ~95% confidence half-width is within --hdbench_noise_target\n"
      "after at least --hdbench_min_samples samples, or until --hdbench_max_seconds (the preset sets all three);\n"
      "its time is the median sample, per unit of work (one copy, one step, one call). --benchmark_min_time=T\n"
      "uses Google Benchmark's rule instead.\n";
  return text;
}

nlohmann::json FlagParser::report() const {
  nlohmann::json j = nlohmann::json::object();
  for (const auto& write : reports_) write(j);
  j["arguments"] = given_;
  return j;
}

}  // namespace hdbench
