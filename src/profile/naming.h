// decodeprof::profile — `decodeprof profile`: the seed harness (seed spec 2.1) generalized.
// Per model and sampling setting: guard → plain run → guard → recorded run → summarize
// (docs/profile.md).
//
// This module owns the harness's naming (run tags and names, the bench's argument template:
// naming.h), the treatment of published logs (line filters and path scrubbing: log_filter.h),
// the processes it starts (process.h), the git provenance (git_info.h) and the whole job
// (profile.h). It depends on base, guard (GuardMain in a forked child), record (finding the
// recorder before the first run) and pipeline (RunSummarize); never on the CLI.
//
// This header: the names of runs and the bench's command line.
#pragma once

#include <string>
#include <vector>

#include "src/base/status.h"

namespace decodeprof::profile {

// The seed bench's arguments, in its order (seed spec 2.1).
inline constexpr char kSeedBenchArgs[] =
    "-m {model} -p profile -n {tokens} --warmup-tokens {warmup} --ignore-eos "
    "--prompt-tokens {prompt} --temperature {temperature} --top-p {top_p}";

// One sampling setting, as the user wrote it: the strings go to the bench verbatim, and the
// tag rules compare strings (seed spec 2.1: "0.00" is not greedy).
struct Sampling {
  std::string temperature = "0";
  std::string top_p = "1.0";
};

// The largest sampling temperature (the smallest is 0, greedy); a top-p is from 0 to 1.
inline constexpr double kMaxTemperature = 100.0;

// Parses a --sampling value "T" or "T:P" (P defaults to "1.0"). Both must be finite numbers
// (base::ParseDouble) in their ranges (T from 0 to kMaxTemperature, P from 0 to 1); they are
// kept as written. Error (kUsage) naming the value.
base::StatusOr<Sampling> ParseSampling(const std::string& text);

// Checks that a sampling setting's values are numbers in their ranges. Error (kUsage) naming
// the flag.
base::Status CheckSampling(const Sampling& sampling);

// The seed's default tag: "greedy" when the temperature is exactly "0" or "0.0"; otherwise
// "t<T>", plus "-p<P>" when the top-p is neither "1" nor "1.0". (A greedy run never gets a
// -p suffix: top-p has no effect without temperature.)
std::string DefaultTag(const Sampling& sampling);

// The last path component of `model`, ignoring trailing slashes, as basename(1) prints it:
// "models/Qwen3-30B-A3B/" → "Qwen3-30B-A3B", "meta-llama/Llama-3.1-8B" → "Llama-3.1-8B",
// "/" → "/", "" → "".
std::string ModelBaseName(const std::string& model);

// The run name: ModelBaseName(model) + "_" + tag.
std::string RunName(const std::string& model, const std::string& tag);

// The values of the placeholders {model}, {tokens}, {warmup}, {prompt}, {temperature} and
// {top_p}.
struct BenchValues {
  std::string model;
  int64_t tokens = 128;
  int64_t warmup = 20;
  int64_t prompt = 512;
  Sampling sampling;
};

// Splits `templ` at runs of whitespace (space, tab, newline) into words and replaces every
// placeholder in each word (a word may hold text around one: "--model={model}"). There is no
// quoting: an argument with a space goes after BENCH on the command line instead. Error (kUsage): a
// `{name}` with a name of lowercase letters and '_' that is not one of the placeholders ("unknown
// placeholder {temp} in --bench-args").
base::StatusOr<std::vector<std::string>> ExpandBenchArgs(const std::string& templ,
                                                         const BenchValues& values);

// Replaces the known placeholders in `word` and leaves every other brace alone (the words
// after BENCH on the command line may be JSON or anything else).
std::string SubstitutePlaceholders(const std::string& word, const BenchValues& values);

}  // namespace decodeprof::profile
