#include "src/analysis/classify.h"

#include <gtest/gtest.h>

namespace decodeprof::analysis {
namespace {

ClassSpec Spec(std::string name, std::vector<std::string> patterns, bool case_sensitive = false) {
  ClassSpec spec;
  spec.name = std::move(name);
  spec.where = "test.toml:1";
  for (std::string& p : patterns) spec.patterns.push_back({std::move(p), "test.toml:2"});
  spec.case_sensitive = case_sensitive;
  return spec;
}

TEST(KernelClassifierTest, FirstMatchingClassWinsAndOtherIsLast) {
  auto classifier = KernelClassifier::Build(
      {Spec("arg_reduce", {"arg_?reduce"}), Spec("reduce", {"reduce"}), Spec("copy", {"copy"})});
  ASSERT_TRUE(classifier.ok()) << classifier.status().ToString();
  EXPECT_EQ(classifier->class_names(), (std::vector<std::string>{"arg_reduce", "reduce", "copy",
                                                                 "memcpy", "memset", "other"}));
  EXPECT_EQ(classifier->Classify("arg_reduce_final<float>"), 0);
  EXPECT_EQ(classifier->Classify("col_reduce_small<float>"), 1);
  EXPECT_EQ(classifier->Classify("copy_v"), 2);
  EXPECT_EQ(classifier->Classify("hadamard"), classifier->other_class());
  EXPECT_EQ(classifier->Find("copy"), std::optional<ClassId>(2));
  EXPECT_EQ(classifier->Find("other"), std::optional<ClassId>(5));
  // Memory-operation classes are matched by kind only, never by a kernel's name.
  EXPECT_EQ(classifier->Classify("memcpy32_post"), classifier->other_class());
  EXPECT_EQ(classifier->Find("nope"), std::nullopt);
}

TEST(KernelClassifierTest, PatternsIgnoreCaseUnlessTheClassIsCaseSensitive) {
  auto classifier = KernelClassifier::Build(
      {Spec("upper", {"rocm::[A-Z]+_contiguous<"}, true), Spec("norm", {"rms_?norm"})});
  ASSERT_TRUE(classifier.ok());
  EXPECT_EQ(classifier->Classify("RMSNorm"), 1);
  EXPECT_EQ(classifier->Classify("rocm::CV_contiguous<int>"), 0);
  EXPECT_EQ(classifier->Classify("rocm::cv_contiguous<int>"), classifier->other_class());
}

TEST(KernelClassifierTest, AnyPatternOfAClassMatchesAnywhereInTheName) {
  auto classifier = KernelClassifier::Build({Spec("qmv", {"\\bqmv", "qmv_", "_qmv", "qvm"})});
  ASSERT_TRUE(classifier.ok());
  EXPECT_EQ(classifier->Classify("void mlx::core::rocm::qmv_wide_kernel<>()"), 0);
  EXPECT_EQ(classifier->Classify("xqvmy"), 0);
  EXPECT_EQ(classifier->Classify("xqmvy"), classifier->other_class());
}

TEST(KernelClassifierTest, BadPatternNamesThePatternLineAndRe2Error) {
  auto classifier = KernelClassifier::Build({Spec("broken", {"ok", "gather(qmv"})});
  ASSERT_FALSE(classifier.ok());
  EXPECT_EQ(classifier.status().kind(), base::ErrorKind::kConfig);
  EXPECT_EQ(classifier.status().where(), "test.toml:2");
  EXPECT_NE(classifier.status().message().find("gather(qmv"), std::string::npos);
  EXPECT_NE(classifier.status().message().find("missing )"), std::string::npos)
      << classifier.status().message();
}

TEST(KernelClassifierTest, RejectsDuplicateOtherEmptyAndPatternlessClasses) {
  EXPECT_FALSE(KernelClassifier::Build({Spec("a", {"x"}), Spec("a", {"y"})}).ok());
  EXPECT_FALSE(KernelClassifier::Build({Spec("other", {"x"})}).ok());
  EXPECT_FALSE(KernelClassifier::Build({Spec("", {"x"})}).ok());
  auto none = KernelClassifier::Build({Spec("a", {})});
  ASSERT_FALSE(none.ok());
  EXPECT_EQ(none.status().where(), "test.toml:1");
  EXPECT_NE(none.status().message().find("no pattern"), std::string::npos);
}

TEST(KernelClassifierTest, NoClassesMeansEverythingIsOther) {
  auto classifier = KernelClassifier::Build({});
  ASSERT_TRUE(classifier.ok());
  EXPECT_EQ(classifier->class_names(), (std::vector<std::string>{"memcpy", "memset", "other"}));
  EXPECT_EQ(classifier->Classify("anything"), classifier->other_class());
}

TEST(KernelClassifierTest, APackMayDeclareTheMemoryClassesWithPatterns) {
  auto classifier = KernelClassifier::Build({Spec("memcpy", {"memcpy"}), Spec("copy", {"copy"})});
  ASSERT_TRUE(classifier.ok());
  EXPECT_EQ(classifier->class_names(),
            (std::vector<std::string>{"memcpy", "copy", "memset", "other"}));
  EXPECT_EQ(classifier->Classify("memcpy32_post"), 0);
}

}  // namespace
}  // namespace decodeprof::analysis
