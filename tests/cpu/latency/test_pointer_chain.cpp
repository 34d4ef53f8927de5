#include <gtest/gtest.h>

#include <set>
#include <vector>

#include "latency/pointer_chain.hpp"

namespace hdbench {
namespace {

TEST(PointerChain, OneCycleThroughEverySlot) {
  for (const std::size_t nodes : {2u, 3u, 17u, 1000u}) {
    const std::size_t stride = 8;
    const std::vector<std::uint64_t> chain = make_pointer_chain(nodes, stride, 42);
    ASSERT_EQ(chain.size(), nodes * stride);
    std::set<std::uint64_t> seen;
    std::uint64_t node = 0;
    for (std::size_t i = 0; i < nodes; ++i) {
      ASSERT_EQ(node % stride, 0u);  // every link lands on a slot
      ASSERT_TRUE(seen.insert(node).second) << "slot " << node / stride << " visited twice";
      node = chain[node];
    }
    EXPECT_EQ(node, 0u);  // back at the start after exactly `nodes` steps
    EXPECT_EQ(seen.size(), nodes);
  }
}

TEST(PointerChain, TheSeedChoosesTheOrder) {
  EXPECT_EQ(make_pointer_chain(64, 1, 7), make_pointer_chain(64, 1, 7));
  EXPECT_NE(make_pointer_chain(64, 1, 7), make_pointer_chain(64, 1, 8));
  EXPECT_THROW(make_pointer_chain(1, 8, 0), std::invalid_argument);
  EXPECT_THROW(make_pointer_chain(8, 0, 0), std::invalid_argument);
}

TEST(PointerChain, TheChaseEndIsWhereTheWalkStops) {
  const std::vector<std::uint64_t> chain = make_pointer_chain(5, 2, 3);
  EXPECT_EQ(chase_end(chain, 0), 0u);
  EXPECT_EQ(chase_end(chain, 1), chain[0]);
  EXPECT_EQ(chase_end(chain, 2), chain[chain[0]]);
  EXPECT_EQ(chase_end(chain, 5), 0u);  // a whole cycle
  EXPECT_EQ(chase_end(chain, 6), chain[0]);
}

}  // namespace
}  // namespace hdbench
