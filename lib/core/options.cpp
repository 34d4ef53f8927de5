#include "core/options.hpp"

#include <algorithm>
#include <string>
#include <string_view>

#include "core/run_watch.hpp"

namespace hdbench {
namespace {

// One number for `flag`: greater than 0 (or at least 0 where `zero_allowed`) and at most
// 1e6, else the usage error naming what it accepts (also for text that is no number).
double parse_positive_number(std::string_view flag, std::string_view text, std::string_view accepted,
                             bool zero_allowed = false) {
  const std::string bounded = fmt::format("{}, at most 1000000", accepted);
  double value = 0.0;
  try {
    value = parse_one_number(flag, text, -1e300, 1e300, bounded);
  } catch (const UsageError&) {
    bad_value(flag, text, bounded);
  }
  if (!(zero_allowed ? value >= 0.0 : value > 0.0) || value > 1e6) bad_value(flag, text, bounded);
  return value;
}

}  // namespace

bool Options::runs_family(std::string_view name) const {
  return std::find(families.begin(), families.end(), name) != families.end();
}

void declare_core_flags(FlagParser& flags, Options& o, const std::vector<std::string>& family_names,
                        std::uint64_t random_seed) {
  o.families = family_names;
  o.seed = random_seed;
  flags.add("out", "PATH", "JSON report path (default reports/hdbench-<gpu>_<cpu>-<time>.json)",
            [&o](auto flag, auto v) { o.out_path = parse_nonempty(flag, v, "a file path"); });
  flags.add("list_cases", "PATH",
            "write every selected case's name, params and skip reason as JSON to PATH (- for standard output) and "
            "exit without running",
            [&o](auto flag, auto v) {
              o.list_cases_path = parse_nonempty(flag, v, "a file path, or - for standard output");
            });
  flags.add("describe_families", "PATH",
            "write every family's description (its params, counters and NVTX category, as the report's "
            "context.hdbench.families holds them) as JSON to PATH (- for standard output) and exit without running",
            [&o](auto flag, auto v) {
              o.describe_families_path = parse_nonempty(flag, v, "a file path, or - for standard output");
            });
  flags.add("families", "LIST", fmt::format("families to run: {} (default all)", fmt::join(family_names, ", ")),
            [&o, family_names](auto flag, auto v) {
              o.families.clear();
              for (std::string_view item : split(v, ',')) {
                if (std::find(family_names.begin(), family_names.end(), item) == family_names.end()) {
                  bad_value(flag, item.empty() ? v : item,
                            fmt::format("a comma-separated list of {}", fmt::join(family_names, ", ")));
                }
                o.families.emplace_back(item);
              }
            });
  flags.add("memory", "LIST",
            "host memory of transfer and streams: pageable, registered, pinned, pinned_wc, mapped (default all)",
            [&o](auto flag, auto v) {
              o.memory_kinds =
                  parse_enum_list<HostMemoryKind>(flag, v, host_memory_kind_from_string, all_host_memory_kinds());
            });
  flags.add("device", "N", "CUDA device index (default 0)", [&o](auto flag, auto v) {
    const std::uint64_t device = parse_unsigned(flag, v, "a device index 0, 1, …");
    if (device > 4095) bad_value(flag, v, "a device index 0, 1, …");
    o.device = static_cast<int>(device);
  });
  flags.add("seed", "N", "seed of the verification pattern, below 2^53 (default random, recorded)",
            [&o](auto flag, auto v) {
              const std::string accepted = fmt::format(
                  "an integer from 0 to {} (2^53 - 1: jq and JavaScript read larger ones rounded)", kSeedLimit - 1);
              o.seed = parse_unsigned(flag, v, accepted);
              if (o.seed >= kSeedLimit) bad_value(flag, v, accepted);
            });
  flags.add("spin_timeout_ms", "MS", "how long a spin kernel holds queued work, 1..600000 (default 5000)",
            [&o](auto flag, auto v) {
              o.spin_timeout_ms = parse_one_number(flag, v, 1.0, 600000.0, "milliseconds from 1 to 600000");
            });
  flags.add("preset", "NAME",
            "quick (a smoke run, under a minute), default (every question of the summary), full (every axis's "
            "whole range); an axis flag given overrides its preset (default default)",
            [&o, &flags](auto flag, auto v) {
              if (v == "quick") {
                o.preset = Preset::quick;
              } else if (v == "default") {
                o.preset = Preset::standard;
              } else if (v == "full") {
                o.preset = Preset::full;
              } else {
                bad_value(flag, v, "quick, default or full");
              }
              flags.set_preset(o.preset);
            });
  flags.add("max_minutes", "M",
            "the run's wall-time budget in minutes (> 0): benchmarks not started by then are reported as skipped, "
            "the one in flight is cut after its current sample (reported as cut), and the report is always written "
            "(default no limit)",
            [&o](auto flag, auto v) {
              o.max_minutes = parse_positive_number(flag, v, "one number of minutes greater than 0, e.g. 5 or 0.5");
            });
  flags.add("deadline_seconds", "S",
            "each benchmark's own deadline in seconds (> 0), set-up included: one still running then is cut and "
            "reported as an error, and the run goes on (default 20 sampling timeouts, at least 30)",
            [&o](auto flag, auto v) {
              o.deadline_seconds = parse_positive_number(flag, v, "a number of seconds greater than 0, e.g. 60");
            });
  // nvbench's stopping rule (core/stopping_rule.hpp); the preset sets its defaults.
  flags.add("min_samples", "N",
            "samples each benchmark takes at least before the noise target can stop it, >= 1 (quick 5, default 10, "
            "full 20)",
            [&o](auto flag, auto v) {
              constexpr std::string_view accepted = "a whole number of samples from 1 to 1000000000, e.g. 10";
              const std::uint64_t n = parse_unsigned(flag, v, accepted);
              if (n < 1 || n > 1000000000) bad_value(flag, v, accepted);
              o.stopping_rule.min_samples = static_cast<int>(n);
            });
  flags.add(
      "noise_target", "PCT",
      "stop sampling once the median's ~95% confidence half-width is at most PCT percent of it, >= 0; 0 turns the "
      "rule off: Google Benchmark's --benchmark_min_time rule, as does giving --benchmark_min_time (quick 2, "
      "default 1, full 0.5)",
      [&o](auto flag, auto v) {
        o.stopping_rule.noise_target_percent = parse_positive_number(
            flag, v, "a percentage >= 0, e.g. 1 or 0.5 (0 turns the rule off)", /*zero_allowed=*/true);
      });
  flags.add("max_seconds", "S",
            "per-benchmark sampling timeout: stop after S seconds of sampling even above the noise target (and "
            "at least 3 samples), > 0 (quick 0.25, default 1, full 5)",
            [&o](auto flag, auto v) {
              o.stopping_rule.timeout_seconds =
                  parse_positive_number(flag, v, "a number of seconds greater than 0, e.g. 1 or 0.25");
            });
  flags.add_check([&o, &flags] {
    StoppingRule& rule = o.stopping_rule;
    flags.apply_preset("min_samples", rule.min_samples, 5, 10);
    flags.apply_preset("noise_target", rule.noise_target_percent, 2.0, 1.0);
    flags.apply_preset("max_seconds", rule.timeout_seconds, 0.25, 1.0);
    // An explicit --benchmark_min_time asks for Google Benchmark's rule.
    const auto& gb = flags.passthrough();
    const bool min_time_given = std::any_of(gb.begin(), gb.end(), [](const std::string& arg) {
      return std::string_view(arg).starts_with("--benchmark_min_time");
    });
    rule.enabled = rule.noise_target_percent > 0.0 && !min_time_given;
    if (o.deadline_seconds > 0 && rule.enabled && o.deadline_seconds <= rule.timeout_seconds) {
      throw UsageError(fmt::format(
          "--hdbench_deadline_seconds={} is not longer than the sampling timeout (--hdbench_max_seconds={}): "
          "every benchmark still sampling would be cut at its deadline; give a deadline above it",
          o.deadline_seconds, rule.timeout_seconds));
    }
  });
  flags.add_check([&o, &flags] {
    // The core's axis: the host memory kinds of transfer and streams.
    flags.apply_preset("memory", o.memory_kinds, {HostMemoryKind::pageable, HostMemoryKind::pinned},
                       {HostMemoryKind::pageable, HostMemoryKind::pinned, HostMemoryKind::mapped});
  });
  flags.add_report([&o](nlohmann::json& j) {
    j["preset"] = to_string(o.preset);
    j["max_minutes"] = o.max_minutes;
    j["deadline_seconds"] =
        o.deadline_seconds > 0 ? o.deadline_seconds : default_deadline_seconds(o.stopping_rule.timeout_seconds);
    j["stopping_rule"] = {{"enabled", o.stopping_rule.enabled},
                          {"min_samples", o.stopping_rule.min_samples},
                          {"noise_target_percent", o.stopping_rule.noise_target_percent},
                          {"timeout_seconds", o.stopping_rule.timeout_seconds}};
    j["families"] = o.families;
    j["memory_kinds"] = names_of(o.memory_kinds);
    j["device"] = o.device;
    j["seed"] = o.seed;
    j["spin_timeout_ms"] = o.spin_timeout_ms;
    j["out_path"] = o.out_path;
  });
}

}  // namespace hdbench
