#include <gtest/gtest.h>

#include "managed/managed_options.hpp"
#include "parsed_flags.hpp"

namespace hdbench {
namespace {

testing::Parsed parse(const std::vector<std::string>& args) { return testing::parse_flags(args, OptionLimits{}, 1); }

TEST(ManagedOptions, PresetsAndVariants) {
  const auto full = parse({"--hdbench_preset=full"}).managed;
  EXPECT_EQ(full.sizes.front(), 4096u);
  EXPECT_EQ(full.sizes.back(), std::size_t{1} << 30);
  EXPECT_EQ(full.variants, all_managed_variants());
  EXPECT_EQ(parse({"--hdbench_preset=quick"}).managed.sizes, std::vector<std::size_t>{std::size_t{4} << 20});
  EXPECT_EQ(parse({"--hdbench_managed_variants=prefetch,accessed_by_gpu"}).managed.variants,
            (std::vector<ManagedVariant>{ManagedVariant::prefetch, ManagedVariant::accessed_by_gpu}));
  EXPECT_THROW(parse({"--hdbench_managed_variants=lazy"}), UsageError);
  EXPECT_TRUE(managed_variant_has_d2h(ManagedVariant::prefetch));
  EXPECT_FALSE(managed_variant_has_d2h(ManagedVariant::read_mostly));  // advice: the GPU reading host pages only
}

}  // namespace
}  // namespace hdbench
