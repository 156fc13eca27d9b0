#pragma once
// Typed errors of the orchestration layer; each maps to an exit code of
// docs/manual/commands.md#exit-codes. The message says what went wrong, the hint what to do next.

#include <array>
#include <cstddef>
#include <stdexcept>
#include <string>
#include <string_view>

namespace refbench {

enum class ExitCode : int {
  ok = 0,
  regression = 1,
  usage = 2,
  refused = 3,
  measurement = 4,
  interrupted_int = 130,
  interrupted_term = 143,
};

// An exit code and what it means, in one line.
struct ExitCodeMeaning {
  ExitCode code;
  std::string_view meaning;
};

// Every exit code, one row per value of ExitCode in its order: the footer of
// `refbench --help` and the man page's EXIT STATUS are made from it.
inline constexpr std::array k_exit_code_meanings{
    ExitCodeMeaning{ExitCode::ok, "no failing verdict (bisect: it names the culprit)"},
    ExitCodeMeaning{ExitCode::regression,
                    "a gated REGRESSION, or INCONCLUSIVE with --fail-on inconclusive (bisect: ambiguous, or a range)"},
    ExitCodeMeaning{ExitCode::usage, "usage error: bad flags or values, a bad config or input file"},
    ExitCodeMeaning{ExitCode::refused,
                    "refused before measuring: bad refs, a failed build or preflight, a command that cannot start"},
    ExitCodeMeaning{
        ExitCode::measurement,
        "a benchmarked command failed, crashed or timed out, or an internal error; the journal keeps the samples"},
    ExitCodeMeaning{ExitCode::interrupted_int,
                    "interrupted by SIGINT; the journal and partial results are kept if anything was measured"},
    ExitCodeMeaning{ExitCode::interrupted_term,
                    "interrupted by SIGTERM; the journal and partial results are kept if anything was measured"},
};
// ExitCode has seven values: seven rows, each code above the one before, so
// none is missing or there twice.
static_assert(k_exit_code_meanings.size() == 7 && [] {
  for (std::size_t i = 1; i < k_exit_code_meanings.size(); ++i) {
    if (k_exit_code_meanings[i - 1].code >= k_exit_code_meanings[i].code) {
      return false;
    }
  }
  return true;
}());

// Base of every error that ends a command; `what()` is the problem, `hint()`
// the next step for the user (may be empty).
class Error : public std::runtime_error {
public:
  Error(ExitCode code, const std::string& what, std::string hint = {})
      : std::runtime_error(what), m_code(code), m_hint(std::move(hint)) {}
  ExitCode code() const { return m_code; }
  const std::string& hint() const { return m_hint; }

private:
  ExitCode m_code;
  std::string m_hint;
};

// Bad flags, values or config (exit 2).
class UsageError : public Error {
public:
  explicit UsageError(const std::string& what, std::string hint = {}) : Error(ExitCode::usage, what, std::move(hint)) {}
};

// Refused before measuring: a command that cannot start, bad refs, a failed
// build or preflight (exit 3).
class RefusedError : public Error {
public:
  explicit RefusedError(const std::string& what, std::string hint = {})
      : Error(ExitCode::refused, what, std::move(hint)) {}
};

// A benchmarked invocation failed, crashed or timed out (exit 4).
class MeasurementError : public Error {
public:
  explicit MeasurementError(const std::string& what, std::string hint = {})
      : Error(ExitCode::measurement, what, std::move(hint)) {}
};

// The run was stopped by SIGINT (exit 130) or SIGTERM (exit 143).
class InterruptedError : public Error {
public:
  // `results_written`: the partial results are on disk (the hint says how to
  // read them); else the signal came before anything was measured.
  explicit InterruptedError(int signal_number, bool results_written = false);
  int signal_number() const { return m_signal; }

private:
  int m_signal;
};

// Formats `error` as the one line main prints:
// "refbench: error: <what> — <hint>".
std::string format_error_line(const Error& error);

} // namespace refbench
