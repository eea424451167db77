#include "src/packs/device_table.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace decodeprof::packs {
namespace {

using ::testing::HasSubstr;

TEST(DeviceTableTest, BuiltinTableParsesWithASourceForEveryEntry) {
  const auto& table = BuiltinDeviceTable();
  ASSERT_TRUE(table.ok()) << table.status().ToString();
  ASSERT_GE(table->size(), 20u);
  for (const DeviceEntry& entry : *table) {
    EXPECT_FALSE(entry.source.empty()) << entry.name;
    EXPECT_GE(entry.gbps, 1) << entry.name;
    EXPECT_THAT(entry.where, HasSubstr("packs/devices.toml:")) << entry.name;
  }
}

TEST(DeviceTableTest, FirstMatchWinsAndPatternsIgnoreCase) {
  auto table = ParseDeviceTable(R"(
[[device]]
name = "specific"
match = 'GH200'
gbps = 4000
source = "a"

[[device]]
name = "general"
match = 'H200'
gbps = 4800.5
source = "b"
)",
                                "t.toml");
  ASSERT_TRUE(table.ok()) << table.status().ToString();
  ASSERT_EQ(table->size(), 2u);
  EXPECT_EQ(FindDevice(*table, "NVIDIA gh200 480GB")->name, "specific");
  EXPECT_EQ(FindDevice(*table, "NVIDIA H200")->name, "general");
  EXPECT_DOUBLE_EQ(FindDevice(*table, "NVIDIA H200")->gbps, 4800.5);
  EXPECT_EQ(FindDevice(*table, "NVIDIA A100"), nullptr);
}

TEST(DeviceTableTest, BadEntriesNameFileAndLine) {
  const struct {
    const char* text;
    const char* where;
    const char* message;
  } cases[] = {
      {"[[device]]\nname = \"x\"\nmatch = 'x'\ngbps = 0\nsource = \"s\"\n", "t.toml:4",
       "'gbps' must be from 1 to 100000"},
      {"[[device]]\nname = \"x\"\nmatch = 'x'\ngbps = \"fast\"\nsource = \"s\"\n", "t.toml:4",
       "'gbps' must be a number"},
      {"[[device]]\nname = \"x\"\nmatch = 'x'\ngbps = 10\n", "t.toml:1", "missing key 'source'"},
      {"[[device]]\nname = \"x\"\nmatch = '(a'\ngbps = 10\nsource = \"s\"\n", "t.toml:3",
       "not a valid RE2 pattern"},
      {"[[device]]\nname = \"x\"\nmatch = 'x'\ngbps = 10\nsource = \"s\"\nspeed = 1\n", "t.toml:6",
       "speed"},
      {"[devices]\ndescription = \"d\"\n", "t.toml", "no [[device]] entry"},
  };
  for (const auto& c : cases) {
    auto table = ParseDeviceTable(c.text, "t.toml");
    ASSERT_FALSE(table.ok()) << c.text;
    EXPECT_EQ(table.status().kind(), base::ErrorKind::kConfig) << c.text;
    EXPECT_EQ(table.status().where(), c.where) << c.text;
    EXPECT_THAT(table.status().message(), HasSubstr(c.message)) << c.text;
  }
}

}  // namespace
}  // namespace decodeprof::packs
