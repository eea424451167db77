// decodeprof::base — error reporting shared by every module.
//
// A Status says what went wrong (`message`), where (`where`: a file, "file:line" or
// "file:byte N"), which kind of problem it is (mapping 1:1 to the exit codes of
// ARCHITECTURE.md) and, optionally, a hint for the user. No exception crosses a module
// boundary: functions that can fail return Status or StatusOr<T>.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <variant>

namespace decodeprof::base {

enum class ErrorKind {
  kOk,
  kUsage,     // bad command line                        -> exit 2
  kConfig,    // bad pack / units / configuration file   -> exit 2
  kData,      // malformed input data                    -> exit 65
  kIo,        // an input file is missing or unreadable  -> exit 66
  kInternal,  // our bug or an unexpected system failure -> exit 70
};

// Exit status for a kind (0 for kOk).
int ExitCode(ErrorKind kind);

class [[nodiscard]] Status {
 public:
  Status() = default;
  Status(ErrorKind kind, std::string where, std::string message, std::string hint = {})
      : kind_(kind),
        details_(std::make_unique<Details>(
            Details{std::move(where), std::move(message), std::move(hint)})) {}
  Status(const Status& other)
      : kind_(other.kind_),
        details_(other.details_ ? std::make_unique<Details>(*other.details_) : nullptr) {}
  Status& operator=(const Status& other) {
    if (this != &other) *this = Status(other);
    return *this;
  }
  Status(Status&&) noexcept = default;
  Status& operator=(Status&&) noexcept = default;
  ~Status() = default;

  bool ok() const { return kind_ == ErrorKind::kOk; }
  ErrorKind kind() const { return kind_; }
  const std::string& where() const { return details_ ? details_->where : Empty(); }
  const std::string& message() const { return details_ ? details_->message : Empty(); }
  const std::string& hint() const { return details_ ? details_->hint : Empty(); }
  int exit_code() const { return ExitCode(kind_); }

  // "<where>: <message>" (or just the message when there is no location).
  std::string ToString() const;

 private:
  // An error's words, apart: an ok status (the one hot loops make per record) is a kind and a
  // null pointer, made and dropped without a call.
  struct Details {
    std::string where;
    std::string message;
    std::string hint;
  };
  static const std::string& Empty();

  ErrorKind kind_ = ErrorKind::kOk;
  std::unique_ptr<Details> details_;
};

inline Status OkStatus() { return Status(); }
inline Status UsageError(std::string message, std::string hint = {}) {
  return Status(ErrorKind::kUsage, {}, std::move(message), std::move(hint));
}
inline Status ConfigError(std::string where, std::string message, std::string hint = {}) {
  return Status(ErrorKind::kConfig, std::move(where), std::move(message), std::move(hint));
}
inline Status DataError(std::string where, std::string message, std::string hint = {}) {
  return Status(ErrorKind::kData, std::move(where), std::move(message), std::move(hint));
}
inline Status IoError(std::string where, std::string message, std::string hint = {}) {
  return Status(ErrorKind::kIo, std::move(where), std::move(message), std::move(hint));
}
inline Status InternalError(std::string where, std::string message) {
  return Status(ErrorKind::kInternal, std::move(where), std::move(message));
}

// "file:line" — the location format of text-file errors.
std::string AtLine(std::string_view file, int64_t line);

// Input quoted in a message. No message shows more than kMaxQuotedInput bytes of the input it
// quotes (a field, a header, a token, a file's first line): every error path that quotes
// input goes through these.
inline constexpr size_t kMaxQuotedInput = 200;
// The first `limit` bytes of `input` at most, cut before a UTF-8 character that would not fit.
std::string_view InputPrefix(std::string_view input, size_t limit = kMaxQuotedInput);
// "" when InputPrefix(input, limit) is all of `input`, else "... (<N> bytes)", N = its size:
// what follows the quoted prefix.
std::string CutNote(std::string_view input, size_t limit = kMaxQuotedInput);
// InputPrefix(input, limit) as it is shown (control bytes and DEL as \xNN, other bytes as they
// are), then CutNote(input, limit).
std::string Excerpt(std::string_view input, size_t limit = kMaxQuotedInput);

template <typename T>
class [[nodiscard]] StatusOr {
 public:
  StatusOr(Status status) : value_(std::move(status)) {}  // NOLINT: implicit by design
  StatusOr(T value) : value_(std::move(value)) {}         // NOLINT: implicit by design

  bool ok() const { return std::holds_alternative<T>(value_); }
  const Status& status() const {
    static const Status kOk;
    return ok() ? kOk : std::get<Status>(value_);
  }
  T& value() & { return std::get<T>(value_); }
  const T& value() const& { return std::get<T>(value_); }
  T&& value() && { return std::get<T>(std::move(value_)); }
  T& operator*() & { return value(); }
  const T& operator*() const& { return value(); }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }

 private:
  std::variant<Status, T> value_;
};

}  // namespace decodeprof::base

#define DP_CONCAT_INNER_(a, b) a##b
#define DP_CONCAT_(a, b) DP_CONCAT_INNER_(a, b)

#define DP_RETURN_IF_ERROR(expr)                    \
  do {                                              \
    ::decodeprof::base::Status dp_status_ = (expr); \
    if (!dp_status_.ok()) return dp_status_;        \
  } while (0)

// `lhs` is a declaration (`auto x`) or an expression, so it cannot be parenthesized.
// NOLINTBEGIN(bugprone-macro-parentheses)
#define DP_ASSIGN_OR_RETURN_IMPL_(tmp, lhs, expr) \
  auto tmp = (expr);                              \
  if (!tmp.ok()) return tmp.status();             \
  lhs = std::move(tmp).value()
// NOLINTEND(bugprone-macro-parentheses)

#define DP_ASSIGN_OR_RETURN(lhs, expr) \
  DP_ASSIGN_OR_RETURN_IMPL_(DP_CONCAT_(dp_statusor_, __LINE__), lhs, expr)
