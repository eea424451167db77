#include "src/analysis/classify.h"

#include <re2/re2.h>

#include <limits>
#include <utility>

#include "src/base/pattern.h"

namespace decodeprof::analysis {
namespace {

const std::string& WhereOf(const ClassPattern& pattern, const ClassSpec& spec) {
  return pattern.where.empty() ? spec.where : pattern.where;
}

}  // namespace

KernelClassifier::KernelClassifier(KernelClassifier&&) noexcept = default;
KernelClassifier& KernelClassifier::operator=(KernelClassifier&&) noexcept = default;
KernelClassifier::~KernelClassifier() = default;

base::StatusOr<KernelClassifier> KernelClassifier::Build(std::vector<ClassSpec> specs) {
  if (specs.size() >= std::numeric_limits<ClassId>::max()) {
    return base::ConfigError(specs.back().where,
                             "too many classes (" + std::to_string(specs.size()) + ")");
  }
  KernelClassifier classifier;
  for (const ClassSpec& spec : specs) {
    if (spec.name.empty()) return base::ConfigError(spec.where, "a class needs a name");
    if (spec.name == kOtherClass) {
      return base::ConfigError(spec.where,
                               "class \"other\" is implicit (it matches what no class matches) "
                               "and cannot be declared");
    }
    if (classifier.Find(spec.name)) {
      return base::ConfigError(spec.where, "duplicate class \"" + spec.name + "\"");
    }
    if (spec.patterns.empty()) {
      return base::ConfigError(spec.where, "class \"" + spec.name + "\" has no pattern");
    }
    const RE2::Options options = base::PatternOptions(spec.case_sensitive);
    std::string alternation;
    for (const ClassPattern& pattern : spec.patterns) {
      // Each pattern alone first, so an error names the pattern and its line.
      auto alone = base::CompilePattern(pattern.regex, spec.case_sensitive);
      if (!alone.ok()) {
        return base::ConfigError(WhereOf(pattern, spec),
                                 "class \"" + spec.name + "\": bad pattern '" +
                                     base::Excerpt(pattern.regex) +
                                     "': " + alone.status().message(),
                                 alone.status().hint());
      }
      if (!alternation.empty()) alternation += '|';
      alternation += "(?:" + pattern.regex + ")";
    }
    auto regex = std::make_unique<RE2>(alternation, options);
    if (!regex->ok()) {
      return base::ConfigError(
          spec.where,
          "class \"" + spec.name + "\": the patterns do not combine: " + regex->error());
    }
    classifier.names_.push_back(spec.name);
    classifier.moves_.push_back(spec.moves);
    classifier.regexes_.push_back(std::move(regex));
  }
  // Memory operations are classed by their kind, in every pack (a pack may also declare
  // these classes, with patterns for kernels that copy).
  for (std::string_view implicit : {kMemcpyClass, kMemsetClass}) {
    if (!classifier.Find(implicit)) classifier.names_.emplace_back(implicit);
  }
  classifier.names_.emplace_back(kOtherClass);
  classifier.moves_.resize(classifier.names_.size());
  return classifier;
}

ClassId KernelClassifier::Classify(std::string_view kernel_name) const {
  const re2::StringPiece text(kernel_name.data(), kernel_name.size());
  for (size_t i = 0; i < regexes_.size(); ++i) {
    if (RE2::PartialMatch(text, *regexes_[i])) return static_cast<ClassId>(i);
  }
  return other_class();
}

std::optional<ClassId> KernelClassifier::Find(std::string_view class_name) const {
  for (size_t i = 0; i < names_.size(); ++i) {
    if (names_[i] == class_name) return static_cast<ClassId>(i);
  }
  return std::nullopt;
}

}  // namespace decodeprof::analysis
