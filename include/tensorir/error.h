// tensorir::Error: the one exception type for user mistakes and broken invariants.
#pragma once
#include <sstream>
#include <stdexcept>
#include <string>

namespace tensorir {

class Error : public std::runtime_error {
 public:
  explicit Error(const std::string &msg) : std::runtime_error(msg) {}
};

namespace detail {
// Collects a message with operator<< and throws it when the statement ends.
class ErrorBuilder {
 public:
  ErrorBuilder(const char *file, int line, bool internal) {
    if (internal) os_ << "internal error at " << file << ":" << line << ": ";
  }
  template <typename T>
  ErrorBuilder &operator<<(const T &v) {
    os_ << v;
    return *this;
  }
  [[noreturn]] ~ErrorBuilder() noexcept(false) { throw Error(os_.str()); }

 private:
  std::ostringstream os_;
};
}  // namespace detail
}  // namespace tensorir

// User-facing check: TIR_USER_CHECK(cond) << "what went wrong and how to fix it";
#define TIR_USER_CHECK(cond) \
  if (cond) {                \
  } else                     \
    ::tensorir::detail::ErrorBuilder(__FILE__, __LINE__, false)
// Internal invariant: reports file and line, still throws (never aborts).
#define TIR_ASSERT(cond) \
  if (cond) {            \
  } else                 \
    ::tensorir::detail::ErrorBuilder(__FILE__, __LINE__, true) << "check failed: " #cond " "
#define TIR_THROW() ::tensorir::detail::ErrorBuilder(__FILE__, __LINE__, false)
