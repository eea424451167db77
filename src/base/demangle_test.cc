#include "src/base/demangle.h"

#include <gtest/gtest.h>

namespace decodeprof::base {
namespace {

TEST(DemangleTest, MangledNamesAreDemangledAndOthersKept) {
  EXPECT_EQ(Demangle("_Z6gemv2TPf"), std::optional<std::string>("gemv2T(float*)"));
  EXPECT_EQ(Demangle("gemv"), std::nullopt);
  EXPECT_EQ(DemangledOrSelf("_Z6gemv2TPf"), "gemv2T(float*)");
  EXPECT_EQ(DemangledOrSelf("_Zbroken"), "_Zbroken");
  EXPECT_EQ(DemangledOrSelf("void k<float>()"), "void k<float>()");
}

}  // namespace
}  // namespace decodeprof::base
