// The binary's command line (bench/families.cpp's list) against the tests' harness,
// so the option tests parse exactly what hdbench parses.
#include <gtest/gtest.h>

#include <algorithm>

#include "families.hpp"
#include "parsed_flags.hpp"

namespace hdbench {
namespace {

OptionLimits limits() {
  OptionLimits l;
  l.hardware_threads = 8;
  return l;
}

TEST(CommandLine, DeclaresTheSameFlagsAsTheTestHarness) {
  const auto line = parse_command_line({}, limits(), 1);
  const testing::Parsed harness = testing::parse_flags({}, limits(), 1);
  EXPECT_EQ(line->flags.names(), harness.flag_names);
  EXPECT_EQ(line->family_names(), testing::kFamilyNames);
  EXPECT_EQ(line->options_json(), harness.json);
}

TEST(CommandLine, HelpGroupsFlagsByOwner) {
  const std::string help = options_help(limits());
  std::size_t last = 0;
  for (const char* group :
       {"\ngeneral:", "\ntransfer (", "\nstreams:", "\nloader:", "\nmlp:", "\ndata (", "\ncpu_blas (", "\ntrace:"}) {
    const std::size_t at = help.find(group);
    ASSERT_NE(at, std::string::npos) << group << "\n" << help;
    EXPECT_GT(at, last) << group;
    last = at;
  }
  // Each flag sits in its owner's group: the loader's after "loader:", before "mlp:".
  EXPECT_GT(help.find("--hdbench_loader_batches="), help.find("\nloader:"));
  EXPECT_LT(help.find("--hdbench_loader_batches="), help.find("\nmlp:"));
}

TEST(CommandLine, EveryFamilyNameIsSelectable) {
  for (const std::string& name : testing::kFamilyNames) {
    const auto line = parse_command_line({"--hdbench_families=" + name}, limits(), 1);
    EXPECT_EQ(line->options.families, std::vector<std::string>{name});
  }
}

}  // namespace
}  // namespace hdbench
