#include "src/profile/naming.h"

#include <array>
#include <cmath>
#include <optional>
#include <string_view>
#include <utility>

#include "src/base/parse.h"

namespace decodeprof::profile {
namespace {

std::array<std::pair<std::string_view, std::string>, 6> Placeholders(const BenchValues& v) {
  return {{{"{model}", v.model},
           {"{tokens}", std::to_string(v.tokens)},
           {"{warmup}", std::to_string(v.warmup)},
           {"{prompt}", std::to_string(v.prompt)},
           {"{temperature}", v.sampling.temperature},
           {"{top_p}", v.sampling.top_p}}};
}

bool IsPlaceholderChar(char c) { return (c >= 'a' && c <= 'z') || c == '_'; }

bool IsSpace(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }

}  // namespace

namespace {

// `text` is a finite number from `min` to `max`.
bool NumberIn(const std::string& text, double min, double max) {
  const std::optional<double> x = base::ParseDouble(text);
  return x && std::isfinite(*x) && *x >= min && *x <= max;
}

}  // namespace

base::StatusOr<Sampling> ParseSampling(const std::string& text) {
  Sampling sampling;
  const size_t colon = text.find(':');
  sampling.temperature = text.substr(0, colon);
  if (colon != std::string::npos) sampling.top_p = text.substr(colon + 1);
  if (!NumberIn(sampling.temperature, 0, kMaxTemperature) ||
      (colon != std::string::npos && !NumberIn(sampling.top_p, 0, 1))) {
    return base::UsageError(
        "--sampling: must be T or T:P, T a number from 0 to 100 and P from 0 "
        "to 1, got '" +
            text + "'",
        "e.g. --sampling 0 --sampling 0.7 --sampling 0.7:0.95");
  }
  return sampling;
}

base::Status CheckSampling(const Sampling& sampling) {
  if (!NumberIn(sampling.temperature, 0, kMaxTemperature)) {
    return base::UsageError("--temperature: must be a number from 0 to 100, got '" +
                            sampling.temperature + "'");
  }
  if (!NumberIn(sampling.top_p, 0, 1)) {
    return base::UsageError("--top-p: must be a number from 0 to 1, got '" + sampling.top_p + "'");
  }
  return base::OkStatus();
}

std::string DefaultTag(const Sampling& sampling) {
  if (sampling.temperature == "0" || sampling.temperature == "0.0") return "greedy";
  std::string tag = "t" + sampling.temperature;
  if (sampling.top_p != "1" && sampling.top_p != "1.0") tag += "-p" + sampling.top_p;
  return tag;
}

std::string ModelBaseName(const std::string& model) {
  size_t end = model.size();
  while (end > 1 && model[end - 1] == '/') --end;
  if (end == 1 && model[0] == '/') return "/";
  const size_t slash = model.rfind('/', end == 0 ? 0 : end - 1);
  const size_t begin = slash == std::string::npos ? 0 : slash + 1;
  return model.substr(begin, end - begin);
}

std::string RunName(const std::string& model, const std::string& tag) {
  return ModelBaseName(model) + "_" + tag;
}

std::string SubstitutePlaceholders(const std::string& word, const BenchValues& values) {
  const auto table = Placeholders(values);
  std::string out;
  size_t i = 0;
  while (i < word.size()) {
    bool replaced = false;
    if (word[i] == '{') {
      for (const auto& [name, value] : table) {
        if (word.compare(i, name.size(), name) == 0) {
          out += value;
          i += name.size();
          replaced = true;
          break;
        }
      }
    }
    if (!replaced) out += word[i++];
  }
  return out;
}

base::StatusOr<std::vector<std::string>> ExpandBenchArgs(const std::string& templ,
                                                         const BenchValues& values) {
  const auto table = Placeholders(values);
  std::vector<std::string> words;
  size_t i = 0;
  while (i < templ.size()) {
    while (i < templ.size() && IsSpace(templ[i])) ++i;
    if (i == templ.size()) break;
    size_t end = i;
    while (end < templ.size() && !IsSpace(templ[end])) ++end;
    const std::string word = templ.substr(i, end - i);
    // Every {lowercase_name} must be a placeholder: a typo must not reach the bench.
    for (size_t open = word.find('{'); open != std::string::npos; open = word.find('{', open + 1)) {
      size_t close = open + 1;
      while (close < word.size() && IsPlaceholderChar(word[close])) ++close;
      if (close == open + 1 || close == word.size() || word[close] != '}') continue;
      const std::string_view name(word.data() + open, close - open + 1);
      bool known = false;
      for (const auto& entry : table) known = known || entry.first == name;
      if (!known) {
        return base::UsageError("unknown placeholder " + std::string(name) + " in --bench-args",
                                "placeholders: {model} {tokens} {warmup} {prompt} {temperature} "
                                "{top_p}");
      }
    }
    words.push_back(SubstitutePlaceholders(word, values));
    i = end;
  }
  return words;
}

}  // namespace decodeprof::profile
