#include "src/base/stage_times.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <string>

namespace decodeprof::base {
namespace {

std::string Marks(const char* env) {
  if (env == nullptr) {
    unsetenv("DECODEPROF_STAGE_TIMES");
  } else {
    setenv("DECODEPROF_STAGE_TIMES", env, 1);
  }
  std::FILE* f = std::tmpfile();
  EXPECT_NE(f, nullptr);
  if (f == nullptr) return "";
  StartStages();
  MarkStage("import", f);
  MarkStage("window", f);
  unsetenv("DECODEPROF_STAGE_TIMES");
  std::string text(4096, '\0');
  std::rewind(f);
  text.resize(std::fread(text.data(), 1, text.size(), f));
  std::fclose(f);
  return text;
}

TEST(StageTimesTest, OneLinePerStageWhenAskedAndNothingOtherwise) {
  const std::string on = Marks("1");
  EXPECT_EQ(on.rfind("decodeprof: stage import ", 0), 0u) << on;
  EXPECT_NE(on.find("\ndecodeprof: stage window "), std::string::npos) << on;
  EXPECT_NE(on.find(" s wall "), std::string::npos) << on;
  EXPECT_NE(on.find(" s CPU on this thread "), std::string::npos) << on;
  EXPECT_NE(on.find(" s CPU in all "), std::string::npos) << on;
  EXPECT_NE(on.find(" MiB RSS "), std::string::npos) << on;
  EXPECT_NE(on.find(" MiB peak RSS; large blocks "), std::string::npos) << on;
  EXPECT_NE(on.find(" trims, "), std::string::npos) << on;
  EXPECT_NE(on.find(" releases)\n"), std::string::npos) << on;
  EXPECT_EQ(Marks(nullptr), "");
  EXPECT_EQ(Marks(""), "");
  EXPECT_EQ(Marks("0"), "");
}

}  // namespace
}  // namespace decodeprof::base
