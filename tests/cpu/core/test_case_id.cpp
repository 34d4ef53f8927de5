#include <gtest/gtest.h>

#include "core/case_id.hpp"

namespace hdbench {
namespace {

TEST(CaseId, TheNameAndTheParamsComeFromTheSameParts) {
  CaseId id("loader");
  id.shown("consumer", "gpu")
      .shown("bytes", 65536, "64KiB")
      .labelled("batch", 256)
      .labelled("depth", "prefetch_depth", 2)
      .param("dataset", "idx")
      .word("extra");
  EXPECT_EQ(id.name(), "loader/gpu/64KiB/batch:256/depth:2/extra");
  EXPECT_EQ(id.params(), (nlohmann::json{{"family", "loader"},
                                         {"consumer", "gpu"},
                                         {"bytes", 65536},
                                         {"batch", 256},
                                         {"prefetch_depth", 2},
                                         {"dataset", "idx"}}));
}

TEST(CaseId, AFamilyAloneIsItsName) {
  const CaseId id("host_memcpy");
  EXPECT_EQ(id.name(), "host_memcpy");
  EXPECT_EQ(id.params(), (nlohmann::json{{"family", "host_memcpy"}}));
}

TEST(CaseId, ALaterPartWithTheSameKeyReplacesTheParamButTheNameKeepsBoth) {
  // A family that sets a key twice says the case twice in its name: visible in a test,
  // not silently lost.
  CaseId id("x");
  id.labelled("threads", 2).labelled("threads", 4);
  EXPECT_EQ(id.name(), "x/threads:2/threads:4");
  EXPECT_EQ(id.params()["threads"], 4);
}

}  // namespace
}  // namespace hdbench
