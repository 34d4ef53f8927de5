// --hdbench_devices: parsing, and resolution against the GPUs a machine has.
#include <gtest/gtest.h>

#include "core/devices.hpp"
#include "core/option_values.hpp"

namespace hdbench {
namespace {

DeviceSelection parse(const std::vector<std::string>& args) {
  FlagParser flags;
  DeviceSelection s;
  declare_device_flags(flags, s);
  flags.parse(args);
  return s;
}

TEST(Devices, DefaultIsTheDeviceOfHdbenchDevice) {
  const DeviceSelection s = parse({});
  EXPECT_EQ(resolve_devices(s, 2, 4), std::vector<int>{2});
  EXPECT_EQ(resolve_devices(s, 0, 0), std::vector<int>{0});  // no GPU: registers as skipped
}

TEST(Devices, AllIsEveryGpuFound) {
  const DeviceSelection s = parse({"--hdbench_devices=all"});
  EXPECT_EQ(resolve_devices(s, 0, 3), (std::vector<int>{0, 1, 2}));
  EXPECT_EQ(resolve_devices(s, 0, 0), std::vector<int>{0});
}

TEST(Devices, AListIsCheckedAgainstTheMachine) {
  const DeviceSelection s = parse({"--hdbench_devices=1,3"});
  EXPECT_EQ(resolve_devices(s, 0, 4), (std::vector<int>{1, 3}));
  EXPECT_THROW(resolve_devices(s, 0, 2), UsageError);
  EXPECT_EQ(resolve_devices(s, 0, 0), (std::vector<int>{1, 3}));
  EXPECT_EQ(resolve_devices(parse({"--hdbench_devices=2,2,0"}), 0, 4), (std::vector<int>{2, 0}));
}

TEST(Devices, BadListsAreRejectedWithTheFlag) {
  EXPECT_THROW(parse({"--hdbench_devices=-1"}), UsageError);
  EXPECT_THROW(parse({"--hdbench_devices=gpu0"}), UsageError);
}

}  // namespace
}  // namespace hdbench
