// Errors are values until main(): library code returns Result<T>, main()
// prints the message and exits with the error's code.
#pragma once

#include <string>
#include <utility>
#include <variant>

namespace harness {

// Exit codes of the harness executable (README: "Exit codes").
enum class ExitCode : int {
  ok = 0,
  failed = 1,       // a verdict failed or a regression was found
  bad_input = 2,    // bad usage or bad input
  infrastructure = 3,  // a probe or the infrastructure failed
};

struct Error {
  std::string message;  // ready for a user: "file:line:col: ...", "probe x: ..."
  ExitCode code = ExitCode::bad_input;

  static Error input(std::string message) { return {std::move(message), ExitCode::bad_input}; }
  static Error infra(std::string message) { return {std::move(message), ExitCode::infrastructure}; }

  // Adds context in front: "while reading x: <message>".
  Error within(const std::string& context) const { return {context + ": " + message, code}; }
};

template <class T>
class [[nodiscard]] Result {
 public:
  Result(T value) : state_(std::move(value)) {}
  Result(Error error) : state_(std::move(error)) {}

  bool ok() const { return state_.index() == 0; }
  explicit operator bool() const { return ok(); }

  T& value() & { return std::get<0>(state_); }
  const T& value() const& { return std::get<0>(state_); }
  T&& value() && { return std::get<0>(std::move(state_)); }
  T& operator*() & { return value(); }
  const T& operator*() const& { return value(); }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }

  const Error& error() const { return std::get<1>(state_); }

 private:
  std::variant<T, Error> state_;
};

// Result of an operation with no value.
struct Done {};
using Status = Result<Done>;
inline Status ok() { return Done{}; }

// The error every measurement returns when its stop token was set (SIGINT,
// SIGTERM, a cancel from the host).
inline Error interrupted_error() { return Error::infra("interrupted"); }

}  // namespace harness

// Returns the error of an expression of type Result<...> from the enclosing
// function, which must itself return a Result or Status.
#define HARNESS_TRY(expr)                           \
  do {                                              \
    auto&& harness_try_result_ = (expr);            \
    if (!harness_try_result_.ok()) return harness_try_result_.error(); \
  } while (0)
