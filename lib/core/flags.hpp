// The --hdbench_* command line: a registry each owner (the core, every family, the
// trace) declares its own flags into, in its own help group, with a handler that
// parses and validates the value into the owner's options. The parser itself knows
// no family's flags. Google Benchmark's flags pass through untouched.
#pragma once

#include <functional>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "core/option_values.hpp"

namespace hdbench {

// What validation compares against; discovered once by main.
struct OptionLimits {
  std::uint64_t host_memory_bytes = 0;  // 0: unknown, sizes are not capped
  int hardware_threads = 1;
};

// Throws a UsageError naming `flag` when one of `sizes` exceeds the host's memory.
void check_sizes_fit(std::string_view flag, const std::vector<std::size_t>& sizes, const OptionLimits& limits);

// --hdbench_preset: how much of each family's grid runs. `full` keeps every axis's
// declared default; `standard` ("default" on the command line) and `quick` replace the
// defaults of the axes whose flags were not given (apply_preset).
enum class Preset { quick, standard, full };
const char* to_string(Preset preset);

class FlagParser {
 public:
  // Parses and validates a value; throws UsageError (option_values.hpp).
  using Handler = std::function<void(std::string_view flag, std::string_view value)>;

  FlagParser();
  FlagParser(const FlagParser&) = delete;
  FlagParser& operator=(const FlagParser&) = delete;

  // The flags declared next belong to this help group ("transfer", "loader", ...).
  void group(std::string title, std::string description = "");
  // --hdbench_NAME=VALUE_HELP, described in --hdbench_help.
  void add(std::string name, std::string value_help, std::string description, Handler handler);
  // Runs after every flag is parsed: checks across flags, or against the machine.
  void add_check(std::function<void()> check);
  // Writes its owner's fields of the report's context.hdbench.options.
  void add_report(std::function<void(nlohmann::json&)> write);

  // Handles every --hdbench_* argument (later ones win) and returns the others in order.
  std::vector<std::string> parse(const std::vector<std::string>& args);

  bool help_requested() const noexcept { return help_; }
  // The arguments parse() passed through (Google Benchmark's), readable by checks.
  const std::vector<std::string>& passthrough() const noexcept { return passthrough_; }
  void set_preset(Preset preset) noexcept { preset_ = preset; }
  Preset preset() const noexcept { return preset_; }
  // In a check: sets `field` to the preset's value unless --hdbench_`name` was given
  // (the full preset keeps the declared default).
  template <class T>
  void apply_preset(std::string_view name, T& field, const T& quick, const T& standard) const {
    if (was_given(name) || preset_ == Preset::full) return;
    field = preset_ == Preset::quick ? quick : standard;
  }
  bool was_given(std::string_view name) const;
  // The --hdbench_* arguments as typed, for the report.
  const std::vector<std::string>& given() const noexcept { return given_; }
  std::vector<std::string> names() const;
  std::string help() const;
  nlohmann::json report() const;

 private:
  struct Flag {
    std::string name;
    std::string value_help;
    std::string description;
    std::size_t group;
    Handler handler;
  };
  struct Group {
    std::string title;
    std::string description;
  };
  const Flag* find(std::string_view name) const;

  std::vector<Group> groups_;
  std::vector<Flag> flags_;
  std::vector<std::function<void()>> checks_;
  std::vector<std::function<void(nlohmann::json&)>> reports_;
  std::vector<std::string> given_;
  std::vector<std::string> given_names_;
  std::vector<std::string> passthrough_;
  bool help_ = false;
  Preset preset_ = Preset::standard;
};

}  // namespace hdbench
