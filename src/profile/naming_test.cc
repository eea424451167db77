#include "src/profile/naming.h"

#include "gtest/gtest.h"

namespace decodeprof::profile {
namespace {

TEST(DefaultTagTest, FollowsTheSeedsStringRules) {
  EXPECT_EQ(DefaultTag({"0", "1.0"}), "greedy");
  EXPECT_EQ(DefaultTag({"0.0", "1.0"}), "greedy");
  EXPECT_EQ(DefaultTag({"0", "0.95"}), "greedy");   // top-p has no effect without temperature
  EXPECT_EQ(DefaultTag({"0.00", "1.0"}), "t0.00");  // a string comparison, as in the seed
  EXPECT_EQ(DefaultTag({"0.7", "1.0"}), "t0.7");
  EXPECT_EQ(DefaultTag({"0.7", "1"}), "t0.7");
  EXPECT_EQ(DefaultTag({"0.7", "0.95"}), "t0.7-p0.95");
  EXPECT_EQ(DefaultTag({"1", "1.00"}), "t1-p1.00");
}

TEST(ModelBaseNameTest, IsBasenameOfThePath) {
  EXPECT_EQ(ModelBaseName("models/Qwen3-30B-A3B"), "Qwen3-30B-A3B");
  EXPECT_EQ(ModelBaseName("models/Qwen3-30B-A3B//"), "Qwen3-30B-A3B");
  EXPECT_EQ(ModelBaseName("meta-llama/Llama-3.1-8B-Instruct"), "Llama-3.1-8B-Instruct");
  EXPECT_EQ(ModelBaseName("granite"), "granite");
  EXPECT_EQ(ModelBaseName("/abs/dir/"), "dir");
  EXPECT_EQ(ModelBaseName("/"), "/");
  EXPECT_EQ(ModelBaseName(""), "");
  EXPECT_EQ(RunName("m/NVIDIA-Nemotron-3-Nano-30B-A3B", "t0.7-p0.95"),
            "NVIDIA-Nemotron-3-Nano-30B-A3B_t0.7-p0.95");
}

TEST(ParseSamplingTest, TakesTOrTColonP) {
  auto greedy = ParseSampling("0");
  ASSERT_TRUE(greedy.ok());
  EXPECT_EQ(greedy->temperature, "0");
  EXPECT_EQ(greedy->top_p, "1.0");
  auto sampled = ParseSampling("0.7:0.95");
  ASSERT_TRUE(sampled.ok());
  EXPECT_EQ(sampled->temperature, "0.7");
  EXPECT_EQ(sampled->top_p, "0.95");
  // Out of range or not finite, as the bench would be told it (issue of `--sampling -1`).
  for (const char* bad : {"", "x", "0.7:", ":0.9", "0.7:abc", "0.7:0.9:1", "-1", "-0.5:0.9", "101",
                          "1e309", "nan", "inf", "0.7:1.5", "0.7:-0.1", "0.7:nan"}) {
    auto parsed = ParseSampling(bad);
    ASSERT_FALSE(parsed.ok()) << bad;
    EXPECT_EQ(parsed.status().kind(), base::ErrorKind::kUsage);
  }
  EXPECT_FALSE(CheckSampling({"warm", "1.0"}).ok());
  EXPECT_FALSE(CheckSampling({"0", "one"}).ok());
  EXPECT_FALSE(CheckSampling({"-1", "1.0"}).ok());
  EXPECT_FALSE(CheckSampling({"0.7", "2"}).ok());
  EXPECT_TRUE(CheckSampling({"0.7", "0.95"}).ok());
  EXPECT_TRUE(CheckSampling({"100", "0"}).ok());
}

BenchValues Values() {
  BenchValues v;
  v.model = "/models/Llama";
  v.sampling = {"0.7", "0.95"};
  return v;
}

TEST(ExpandBenchArgsTest, TheDefaultIsTheSeedBenchsOrder) {
  auto words = ExpandBenchArgs(kSeedBenchArgs, Values());
  ASSERT_TRUE(words.ok());
  const std::vector<std::string> expected = {
      "-m",  "/models/Llama",   "-p",  "profile",      "-n",
      "128", "--warmup-tokens", "20",  "--ignore-eos", "--prompt-tokens",
      "512", "--temperature",   "0.7", "--top-p",      "0.95"};
  EXPECT_EQ(*words, expected);
}

TEST(ExpandBenchArgsTest, ATemplateForThePyTorchDriver) {
  BenchValues v = Values();
  v.tokens = 64;
  v.warmup = 5;
  v.prompt = 128;
  auto words = ExpandBenchArgs(
      "  --model {model}\t-n {tokens}\n --warmup-tokens={warmup} --prompt-tokens {prompt} "
      "--temperature {temperature} --top-p {top_p} --ignore-eos  ",
      v);
  ASSERT_TRUE(words.ok());
  const std::vector<std::string> expected = {"--model",
                                             "/models/Llama",
                                             "-n",
                                             "64",
                                             "--warmup-tokens=5",
                                             "--prompt-tokens",
                                             "128",
                                             "--temperature",
                                             "0.7",
                                             "--top-p",
                                             "0.95",
                                             "--ignore-eos"};
  EXPECT_EQ(*words, expected);
}

TEST(ExpandBenchArgsTest, AnUnknownPlaceholderIsAUsageError) {
  auto words = ExpandBenchArgs("--temp {temp}", Values());
  ASSERT_FALSE(words.ok());
  EXPECT_EQ(words.status().kind(), base::ErrorKind::kUsage);
  EXPECT_NE(words.status().message().find("{temp}"), std::string::npos);
}

TEST(ExpandBenchArgsTest, OtherBracesAreLeftAlone) {
  auto words = ExpandBenchArgs("{\"a\":1} {} {X} {model", Values());
  ASSERT_TRUE(words.ok());
  const std::vector<std::string> expected = {"{\"a\":1}", "{}", "{X}", "{model"};
  EXPECT_EQ(*words, expected);
  EXPECT_TRUE(ExpandBenchArgs("", Values())->empty());
}

TEST(SubstitutePlaceholdersTest, ReplacesKnownNamesOnly) {
  EXPECT_EQ(SubstitutePlaceholders("cfg={model}/config.json", Values()),
            "cfg=/models/Llama/config.json");
  EXPECT_EQ(SubstitutePlaceholders("{tokens}{top_p}{unknown}", Values()), "1280.95{unknown}");
  // A value that looks like a placeholder is not expanded again.
  BenchValues v = Values();
  v.model = "{tokens}";
  EXPECT_EQ(SubstitutePlaceholders("{model}", v), "{tokens}");
}

}  // namespace
}  // namespace decodeprof::profile
