// for_each_case: the cross product of a family's axes, each case's name and params built
// from the axes in the name's order, the body free to add params and to skip.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "core/case_grid.hpp"

namespace hdbench {
namespace {

enum class Colour { red, blue };
const char* to_string(Colour c) noexcept { return c == Colour::red ? "red" : "blue"; }

TEST(CaseGrid, EveryCombinationInAxisOrderNamedInNameOrder) {
  std::vector<std::string> names;
  std::vector<nlohmann::json> params;
  for_each_case(
      "paint", {"colour", "bytes"},
      [&](CaseId& id, std::size_t bytes, Colour colour, int coats) {
        EXPECT_EQ(id.params()["bytes"], bytes);
        EXPECT_EQ(id.params()["coats"], coats);
        EXPECT_EQ(id.params()["colour"], to_string(colour));
        names.push_back(id.name());
        params.push_back(id.params());
      },
      size_case_axis("bytes", {1024, 1 << 20}),
      named_case_axis("colour", std::vector<Colour>{Colour::red, Colour::blue}),
      labelled_case_axis("coats", std::vector<int>{2}));
  // The first axis is the outer loop; the name shows colour, then bytes, then the rest.
  EXPECT_EQ(names, (std::vector<std::string>{"paint/red/1KiB/coats:2", "paint/blue/1KiB/coats:2",
                                             "paint/red/1MiB/coats:2", "paint/blue/1MiB/coats:2"}));
  EXPECT_EQ(params[0], (nlohmann::json{{"family", "paint"}, {"colour", "red"}, {"bytes", 1024}, {"coats", 2}}));
}

TEST(CaseGrid, HiddenAxesAndTheBodysOwnParamsStayOutOfTheName) {
  std::vector<std::string> names;
  CaseAxis<int> seed = labelled_case_axis("seed", std::vector<int>{7});
  seed.shown = Shown::hidden;
  for_each_case(
      "paint", {},
      [&](CaseId& id, Colour colour, int) {
        if (colour == Colour::blue) return;  // a combination the family does not run
        id.param("memory", "pinned");
        EXPECT_EQ(id.params()["seed"], 7);
        EXPECT_EQ(id.params()["memory"], "pinned");
        names.push_back(id.name());
      },
      named_case_axis("colour", std::vector<Colour>{Colour::red, Colour::blue}), seed);
  EXPECT_EQ(names, std::vector<std::string>{"paint/red"});
}

TEST(CaseGrid, ALabelOfItsOwnAndWordsAsThemselves) {
  std::vector<std::string> names;
  for_each_case(
      "paint", {},
      [&](CaseId& id, const std::string& brand, int depth, Colour) {
        EXPECT_EQ(id.params()["brand"], brand);
        EXPECT_EQ(id.params()["prefetch_depth"], depth);
        names.push_back(id.name());
      },
      word_case_axis("brand", {"acme"}), labelled_case_axis("prefetch_depth", std::vector<int>{2}, "depth"),
      shown_as(named_case_axis("colour", std::vector<Colour>{Colour::red}), Shown::labelled, "in"));
  EXPECT_EQ(names, std::vector<std::string>{"paint/acme/depth:2/in:red"});
}

TEST(CaseGrid, OneValueShownOtherwiseKeepsTheNameFromBeforeTheAxis) {
  // As the numa axis (near in the params only, far named too) and busy threads (none in
  // neither the name nor the params).
  CaseAxis<Colour> colour =
      shown_as(named_case_axis("colour", std::vector<Colour>{Colour::red, Colour::blue}), Shown::labelled);
  colour.shown_for = [](const Colour& c) { return c == Colour::red ? Shown::hidden : Shown::labelled; };
  CaseAxis<int> busy = labelled_case_axis("busy_threads", std::vector<int>{0, 2}, "busy");
  busy.shown_for = [](const int& n) { return n > 0 ? Shown::labelled : Shown::absent; };
  std::vector<std::string> names;
  std::vector<nlohmann::json> params;
  for_each_case(
      "paint", {},
      [&](CaseId& id, Colour, int) {
        names.push_back(id.name());
        params.push_back(id.params());
      },
      colour, busy);
  EXPECT_EQ(names,
            (std::vector<std::string>{"paint", "paint/busy:2", "paint/colour:blue", "paint/colour:blue/busy:2"}));
  EXPECT_EQ(params[0], (nlohmann::json{{"family", "paint"}, {"colour", "red"}}));
  EXPECT_EQ(params[3], (nlohmann::json{{"family", "paint"}, {"colour", "blue"}, {"busy_threads", 2}}));
}

TEST(CaseGrid, AnEmptyAxisMeansNoCases) {
  int calls = 0;
  for_each_case(
      "paint", {}, [&](CaseId&, Colour, std::size_t) { ++calls; },
      named_case_axis("colour", std::vector<Colour>{Colour::red}), size_case_axis("bytes", {}));
  EXPECT_EQ(calls, 0);
}

}  // namespace
}  // namespace hdbench
