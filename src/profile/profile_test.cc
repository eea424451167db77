#include "src/profile/profile.h"

#include <stdlib.h>
#include <sys/stat.h>

#include <fstream>
#include <map>
#include <memory>

#include "gtest/gtest.h"
#include "tests/support/temp_dir.h"

namespace decodeprof::profile {
namespace {

record::GetEnvFn Env(std::map<std::string, std::string> vars) {
  auto shared = std::make_shared<std::map<std::string, std::string>>(std::move(vars));
  return [shared](const char* name) -> const char* {
    auto it = shared->find(name);
    return it == shared->end() ? nullptr : it->second.c_str();
  };
}

class ProfileOptionsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = temp_.path();
    bench_ = dir_ + "/bench";
    rocprofv3_ = dir_ + "/rocprofv3";
    for (const std::string& path : {bench_, rocprofv3_}) {
      std::ofstream(path) << "#!/bin/sh\n";
      ASSERT_EQ(::chmod(path.c_str(), 0755), 0);
    }
    options_.models = {"/models/Llama-3.1-8B"};
    options_.bench = {bench_};
    options_.backend = record::Backend::kRocprofv3;
    options_.decodeprof_exe = dir_ + "/decodeprof";
  }
  base::Status Validate() const {
    return ValidateOptions(options_, Env({{"ROCPROFV3", rocprofv3_}, {"PATH", dir_}}));
  }
  decodeprof::testing::TempDir temp_{"profile_"};
  std::string dir_;
  std::string bench_;
  std::string rocprofv3_;
  ProfileOptions options_;
};

TEST_F(ProfileOptionsTest, AValidSetup) { EXPECT_TRUE(Validate().ok()) << Validate().ToString(); }

TEST_F(ProfileOptionsTest, BenchCommandIsBenchThenItsWordsThenTheTemplate) {
  options_.bench = {"python3", "examples/hf_decode/hf_decode.py", "--module-ranges",
                    "--config={model}/config.json"};
  options_.bench_args =
      "--model {model} -n {tokens} --warmup-tokens {warmup} --prompt-tokens {prompt} "
      "--temperature {temperature} --top-p {top_p} --ignore-eos";
  options_.tokens = 8;
  auto command = BenchCommand(options_, "Qwen3-30B-A3B", Sampling{"0.7", "0.95"});
  ASSERT_TRUE(command.ok());
  const std::vector<std::string> expected = {"python3",
                                             "examples/hf_decode/hf_decode.py",
                                             "--module-ranges",
                                             "--config=Qwen3-30B-A3B/config.json",
                                             "--model",
                                             "Qwen3-30B-A3B",
                                             "-n",
                                             "8",
                                             "--warmup-tokens",
                                             "20",
                                             "--prompt-tokens",
                                             "512",
                                             "--temperature",
                                             "0.7",
                                             "--top-p",
                                             "0.95",
                                             "--ignore-eos"};
  EXPECT_EQ(*command, expected);
}

TEST_F(ProfileOptionsTest, UsageErrors) {
  const auto expect_usage = [this](const std::string& needle) {
    const base::Status s = Validate();
    EXPECT_EQ(s.kind(), base::ErrorKind::kUsage) << s.ToString();
    EXPECT_NE(s.ToString().find(needle), std::string::npos) << s.ToString();
  };
  ProfileOptions saved = options_;
  options_.models.clear();
  expect_usage("no model given");
  options_ = saved;
  options_.bench.clear();
  expect_usage("no bench command");
  options_ = saved;
  options_.samplings = {{"hot", "1.0"}};
  expect_usage("--temperature: must be a number from 0 to 100, got 'hot'");
  options_ = saved;
  options_.samplings = {{"0", "1.0"}, {"0.7", "1.0"}};
  options_.tag = "mine";
  expect_usage("--tag");
  options_ = saved;
  // Tags and run names become file names (issue 11, "Output paths").
  for (const char* tag : {"a/b", "..", ".", "x\ty"}) {
    options_.tag = tag;
    expect_usage("--tag must be a plain file name, got '");
  }
  options_ = saved;
  options_.models = {"models/bad\nname"};
  expect_usage("the run name of --model 'models/bad\nname' must be a plain file name");
  options_ = saved;
  options_.out_dir = "-";
  expect_usage("--out - : profile writes a directory");
  options_ = saved;
  options_.models = {"/a/Llama", "/b/Llama/"};
  expect_usage("two runs would be named Llama_greedy");
  options_ = saved;
  options_.models = {"/"};
  expect_usage("cannot name a run");
  options_ = saved;
  options_.bench_args = "-m {model} --t {temp}";
  expect_usage("unknown placeholder {temp}");
}

TEST_F(ProfileOptionsTest, ConfigErrors) {
  options_.bench = {dir_ + "/absent-bench"};
  base::Status s = Validate();
  EXPECT_EQ(s.kind(), base::ErrorKind::kConfig);
  EXPECT_EQ(s.message(), "bench binary not found (build it first)");
  EXPECT_EQ(s.where(), dir_ + "/absent-bench");

  options_.bench = {"bench"};  // found in PATH
  EXPECT_TRUE(Validate().ok());
  options_.bench = {"no-such-bench"};
  EXPECT_EQ(Validate().kind(), base::ErrorKind::kConfig);

  options_.bench = {bench_};
  s = ValidateOptions(options_, Env({{"ROCPROFV3", dir_ + "/absent"}}));
  EXPECT_EQ(s.message(), "rocprofv3 not found (set ROCPROFV3)");

  options_.backend = record::Backend::kCupti;
  s = ValidateOptions(options_, Env({}));
  EXPECT_EQ(s.kind(), base::ErrorKind::kConfig);
  EXPECT_NE(s.message().find("libdecodeprof_cupti.so"), std::string::npos);
  EXPECT_TRUE(ValidateOptions(options_, Env({{"DECODEPROF_CUPTI_INJECTION", bench_}})).ok());
}

TEST(DirNameTest, OfExecutablePaths) {
  EXPECT_EQ(DirName("/usr/bin/decodeprof"), "/usr/bin");
  EXPECT_EQ(DirName("/decodeprof"), "/");
  EXPECT_EQ(DirName("decodeprof"), ".");
}

}  // namespace
}  // namespace decodeprof::profile
