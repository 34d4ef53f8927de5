// --hdbench_min_samples, --hdbench_noise_target and --hdbench_max_seconds: the
// stopping rule's defaults come from the preset, explicit flags override them, an
// explicit --benchmark_min_time or a noise target of 0 turns the rule off, bad values
// exit 2 naming the flag and what it accepts, and the report records the rule.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "option_test_support.hpp"
#include "parsed_flags.hpp"

namespace hdbench {
namespace {

using namespace hdbench::testing;  // NOLINT: the harness and helpers of every option test

Parsed parse(const std::vector<std::string>& args) { return parse_flags(args, OptionLimits{}, 1); }

void expect_rule(const StoppingRule& rule, int min_samples, double noise, double timeout, bool enabled) {
  EXPECT_EQ(rule.min_samples, min_samples);
  EXPECT_DOUBLE_EQ(rule.noise_target_percent, noise);
  EXPECT_DOUBLE_EQ(rule.timeout_seconds, timeout);
  EXPECT_EQ(rule.enabled, enabled);
}

TEST(StoppingRuleFlags, EachPresetSetsTheRulesDefaults) {
  expect_rule(parse({"--hdbench_preset=quick"}).core.stopping_rule, 5, 2.0, 0.25, true);
  expect_rule(parse({}).core.stopping_rule, 10, 1.0, 1.0, true);  // default
  expect_rule(parse({"--hdbench_preset=default"}).core.stopping_rule, 10, 1.0, 1.0, true);
  expect_rule(parse({"--hdbench_preset=full"}).core.stopping_rule, 20, 0.5, 5.0, true);
}

TEST(StoppingRuleFlags, ExplicitFlagsOverrideThePresetInEitherOrder) {
  for (const auto& args : {std::vector<std::string>{"--hdbench_preset=quick", "--hdbench_min_samples=3",
                                                    "--hdbench_noise_target=0.1", "--hdbench_max_seconds=7"},
                           std::vector<std::string>{"--hdbench_min_samples=3", "--hdbench_noise_target=0.1",
                                                    "--hdbench_max_seconds=7", "--hdbench_preset=quick"}}) {
    expect_rule(parse(args).core.stopping_rule, 3, 0.1, 7.0, true);
  }
  // One flag given: the others stay the preset's.
  expect_rule(parse({"--hdbench_preset=full", "--hdbench_max_seconds=0.5"}).core.stopping_rule, 20, 0.5, 0.5, true);
}

TEST(StoppingRuleFlags, AnExplicitMinTimeOrANoiseTargetOfZeroTurnsTheRuleOff) {
  const Parsed min_time = parse({"--benchmark_min_time=0.5"});
  EXPECT_FALSE(min_time.core.stopping_rule.enabled);
  EXPECT_EQ(min_time.passthrough, std::vector<std::string>{"--benchmark_min_time=0.5"});  // still Google's
  EXPECT_FALSE(parse({"--hdbench_noise_target=0"}).core.stopping_rule.enabled);
  EXPECT_TRUE(parse({"--benchmark_filter=x"}).core.stopping_rule.enabled);
}

TEST(StoppingRuleFlags, BadValuesNameTheFlagAndWhatItAccepts) {
  const struct {
    std::vector<const char*> values;
    const char* flag;
    const char* accepted;
  } cases[] = {
      {{"0", "-1", "2.5", "many", "", "1,2", "4294967296"}, "--hdbench_min_samples", "from 1 to 1000000000"},
      {{"-1", "abc", "", "1,2", "nan"}, "--hdbench_noise_target", ">= 0"},
      {{"0", "-1", "abc", "", "1,2"}, "--hdbench_max_seconds", "greater than 0"},
      {{"1e308", "2000000"}, "--hdbench_max_seconds", "at most 1000000"},
  };
  for (const auto& c : cases) {
    for (const char* value : c.values) {
      const std::string arg = std::string(c.flag) + "=" + value;
      const std::string message = usage_error_of([&] { parse({arg}); });
      EXPECT_TRUE(contains(message, c.flag)) << arg << ": " << message;
      EXPECT_TRUE(contains(message, c.accepted)) << arg << ": " << message;
    }
  }
}

TEST(StoppingRuleFlags, ADeadlineNoLongerThanTheSamplingTimeoutIsBadUsage) {
  // Every benchmark still sampling at its timeout would be cut at its deadline first.
  const std::string message = usage_error_of([] {
    parse({"--hdbench_deadline_seconds=0.5", "--hdbench_max_seconds=2"});
  });
  EXPECT_TRUE(contains(message, "--hdbench_deadline_seconds=0.5 is not longer than the sampling timeout")) << message;
  EXPECT_NO_THROW(parse({"--hdbench_deadline_seconds=3", "--hdbench_max_seconds=2"}));
  // Google Benchmark's own rule has no sampling timeout to cut.
  EXPECT_NO_THROW(parse({"--hdbench_deadline_seconds=0.5", "--benchmark_min_time=1"}));
}

TEST(StoppingRuleFlags, TheReportRecordsTheRuleAsItRan) {
  const nlohmann::json quick = parse({"--hdbench_preset=quick"}).json["stopping_rule"];
  EXPECT_EQ(quick["enabled"], true);
  EXPECT_EQ(quick["min_samples"], 5);
  EXPECT_EQ(quick["noise_target_percent"], 2.0);
  EXPECT_EQ(quick["timeout_seconds"], 0.25);
  EXPECT_EQ(parse({"--benchmark_min_time=0.2"}).json["stopping_rule"]["enabled"], false);
}

TEST(StoppingRuleFlags, HelpSaysAnExplicitMinTimeTurnsTheRuleOff) {
  const std::string help = parse({}).help_text;
  for (const char* flag : {"--hdbench_min_samples", "--hdbench_noise_target", "--hdbench_max_seconds"}) {
    EXPECT_TRUE(contains(help, flag)) << flag;
  }
  EXPECT_TRUE(contains(help, "--benchmark_min_time")) << help;
  // The rule replaced Google Benchmark's fixed minimum time (issue 28): the help's last
  // lines describe the rule, not the old 0.1 s.
  EXPECT_FALSE(contains(help, "at least 0.1 s")) << help;
  EXPECT_TRUE(contains(help, "median")) << help;
}

}  // namespace
}  // namespace hdbench
