#include "src/trace/spool.h"

#include "src/trace/trace.h"

#include <gtest/gtest.h>
#include <stdlib.h>

#include <span>
#include <string>
#include <vector>

namespace decodeprof::trace {
namespace {

std::vector<int64_t> DrainStarts(Spool<Dispatch>& spool) {
  std::vector<int64_t> out;
  const base::Status s = spool.Drain([&](const Dispatch& d) { out.push_back(d.start); });
  EXPECT_TRUE(s.ok()) << s.message();
  return out;
}

TEST(SpoolTest, KeepsFewRecordsInMemory) {
  Spool<Dispatch> spool(8);
  for (int i = 0; i < 5; ++i) spool.Add(Dispatch{.start = i});
  EXPECT_EQ(spool.spilled_bytes(), 0);
  EXPECT_EQ(spool.size(), 5);
  EXPECT_EQ(DrainStarts(spool), (std::vector<int64_t>{0, 1, 2, 3, 4}));
  EXPECT_EQ(spool.size(), 0);
}

TEST(SpoolTest, SpillsBlocksAndReplaysInOrder) {
  Spool<Dispatch> spool(3);
  std::vector<int64_t> expected;
  for (int i = 0; i < 10; ++i) {
    spool.Add(Dispatch{.start = 100 + i, .end = 200 + i});
    expected.push_back(100 + i);
  }
  EXPECT_EQ(spool.spilled_bytes(), static_cast<int64_t>(9 * sizeof(Dispatch)));
  EXPECT_EQ(DrainStarts(spool), expected);
}

TEST(SpoolTest, DrainsInBlocksInOrder) {
  Spool<Dispatch> spool(3);  // 9 records in the file, 1 in memory
  for (int i = 0; i < 10; ++i) spool.Add(Dispatch{.start = 100 + i});
  std::vector<int64_t> starts;
  size_t blocks = 0;
  const base::Status s = spool.DrainBlocks([&](std::span<Dispatch> block) {
    ++blocks;
    for (Dispatch& d : block) {
      d.start += 1000;  // a block may be changed in place
      starts.push_back(d.start);
    }
  });
  ASSERT_TRUE(s.ok()) << s.message();
  EXPECT_GE(blocks, 2u);
  std::vector<int64_t> expected;
  for (int i = 0; i < 10; ++i) expected.push_back(1100 + i);
  EXPECT_EQ(starts, expected);
  EXPECT_EQ(spool.size(), 0);
  EXPECT_EQ(spool.spilled_bytes(), 0);
  EXPECT_EQ(DrainStarts(spool), std::vector<int64_t>{});
}

TEST(SpoolTest, LaunchCallsKeepEveryField) {
  Spool<ApiCall> small(2);
  for (uint64_t i = 1; i <= 5; ++i) small.Add(ApiCall{7, 10, 20, 99, i});
  std::vector<uint64_t> correlations;
  ASSERT_TRUE(small
                  .Drain([&](const ApiCall& c) {
                    EXPECT_EQ(c.thread, 99u);
                    EXPECT_EQ(c.end, 20);
                    correlations.push_back(c.correlation);
                  })
                  .ok());
  EXPECT_EQ(correlations, (std::vector<uint64_t>{1, 2, 3, 4, 5}));
}

TEST(SpoolTest, AnUnwritableTmpdirIsAnError) {
  const char* old = getenv("TMPDIR");
  const std::string saved = old != nullptr ? old : "";
  setenv("TMPDIR", "/nonexistent/decodeprof-spool-test", 1);
  Spool<Dispatch> spool(2);
  for (int i = 0; i < 6; ++i) spool.Add(Dispatch{.start = i});
  const base::Status s = spool.Drain([](const Dispatch&) {});
  if (old != nullptr) {
    setenv("TMPDIR", saved.c_str(), 1);
  } else {
    unsetenv("TMPDIR");
  }
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("cannot create a temporary file"), std::string::npos) << s.message();
  EXPECT_NE(s.hint().find("TMPDIR"), std::string::npos) << s.hint();
}

TEST(SpoolTest, BuilderSendsLaunchesToItsSink) {
  StringPool names;
  NullSink none;
  LaunchSpool launches;
  TraceBuilder builder(names, none);
  builder.set_launch_sink(&launches);
  builder.AddLaunch(ApiCall{1, 10, 20, 5, 42});
  builder.AddLaunch(ApiCall{1, 30, 40, 5, 0});  // correlation 0: dropped
  const ImportedTrace t = std::move(builder).Finish();
  EXPECT_TRUE(t.launches.empty());
  EXPECT_EQ(launches.spool().size(), 1);
}

}  // namespace
}  // namespace decodeprof::trace
