// declare_axis: one declaration gives an axis its flag, its presets and its report field.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "core/axis.hpp"

namespace hdbench {
namespace {

enum class Colour { red, green, blue };
const char* to_string(Colour c) { return c == Colour::red ? "red" : c == Colour::green ? "green" : "blue"; }
std::optional<Colour> colour_from_string(std::string_view s) {
  for (Colour c : {Colour::red, Colour::green, Colour::blue}) {
    if (s == to_string(c)) return c;
  }
  return std::nullopt;
}

struct Axes {
  std::vector<int> counts = {1, 2, 4, 8};  // the declared default: what the full preset runs
  std::vector<Colour> colours = {Colour::red, Colour::green, Colour::blue};
};

// The axes declared into a parser set to `preset`, then `args` parsed; the report's fields.
nlohmann::json run(Preset preset, const std::vector<std::string>& args, Axes& axes) {
  FlagParser flags;
  flags.set_preset(preset);
  flags.group("test");
  declare_axis<int>(flags, axes.counts,
                    {.flag = "counts",
                     .value_help = "LIST",
                     .description = "counts, 1..64 (default 1,2,4,8)",
                     .parse = [](auto flag, auto v) { return parse_int_list(flag, v, 1, 64); },
                     .quick = std::vector<int>{1},
                     .standard = std::vector<int>{1, 4},
                     .report_field = "counts_n"});
  Axis<Colour> colours = enum_axis<Colour>("colours", "red, green, blue (default all)", colour_from_string,
                                           {Colour::red, Colour::green, Colour::blue});
  colours.quick = std::vector<Colour>{Colour::green};
  declare_axis(flags, axes.colours, std::move(colours));
  flags.parse(args);
  return flags.report();
}

TEST(Axis, EachPresetGivesItsValuesAndFullKeepsTheDeclaredDefault) {
  Axes quick, standard, full;
  run(Preset::quick, {}, quick);
  run(Preset::standard, {}, standard);
  run(Preset::full, {}, full);
  EXPECT_EQ(quick.counts, std::vector<int>{1});
  EXPECT_EQ(standard.counts, (std::vector<int>{1, 4}));
  EXPECT_EQ(full.counts, (std::vector<int>{1, 2, 4, 8}));
  // No standard values: the default preset keeps the declared default.
  EXPECT_EQ(quick.colours, std::vector<Colour>{Colour::green});
  EXPECT_EQ(standard.colours.size(), 3u);
  EXPECT_EQ(full.colours.size(), 3u);
}

TEST(Axis, TheFlagGivenWinsOverEveryPreset) {
  for (Preset preset : {Preset::quick, Preset::standard, Preset::full}) {
    Axes axes;
    run(preset, {"--hdbench_counts=16,32", "--hdbench_colours=blue,red"}, axes);
    EXPECT_EQ(axes.counts, (std::vector<int>{16, 32}));
    EXPECT_EQ(axes.colours, (std::vector<Colour>{Colour::blue, Colour::red}));
  }
}

TEST(Axis, TheReportFieldHoldsTheValuesInForceAndAnEnumByName) {
  Axes axes;
  const nlohmann::json report = run(Preset::quick, {"--hdbench_counts=3"}, axes);
  EXPECT_EQ(report["counts_n"], nlohmann::json::array({3}));
  EXPECT_EQ(report["colours"], nlohmann::json::array({"green"}));
}

TEST(Axis, ABadValueNamesTheFlagAndWhatIsAccepted) {
  Axes axes;
  try {
    run(Preset::standard, {"--hdbench_colours=purple"}, axes);
    FAIL() << "purple was accepted";
  } catch (const UsageError& error) {
    const std::string message = error.what();
    EXPECT_NE(message.find("--hdbench_colours"), std::string::npos) << message;
    EXPECT_NE(message.find("red, green, blue"), std::string::npos) << message;
  }
  EXPECT_THROW(run(Preset::standard, {"--hdbench_counts=65"}, axes), UsageError);
}

TEST(Axis, HelpListsTheFlagWithItsDescription) {
  FlagParser flags;
  Axes axes;
  flags.group("test");
  declare_axis<int>(flags, axes.counts,
                    {.flag = "counts",
                     .value_help = "LIST",
                     .description = "counts, 1..64 (default 1,2,4,8)",
                     .parse = [](auto flag, auto v) { return parse_int_list(flag, v, 1, 64); },
                     .report_field = "counts"});
  EXPECT_NE(flags.help().find("--hdbench_counts=LIST"), std::string::npos);
  EXPECT_NE(flags.help().find("counts, 1..64 (default 1,2,4,8)"), std::string::npos);
}

}  // namespace
}  // namespace hdbench
