#include <refbench/model/invocation.hpp>

#include <cstring>
#include <fmt/format.h>
#include <string.h>

namespace refbench::model {

std::string describe(const Outcome& outcome, std::chrono::nanoseconds timeout) {
  switch (outcome.termination) {
  case Termination::exited:
    return fmt::format("exited with code {}", outcome.exit_code);
  case Termination::signaled: {
    const char* abbrev = sigabbrev_np(outcome.signal);
    return abbrev ? fmt::format("was killed by SIG{}", abbrev) : fmt::format("was killed by signal {}", outcome.signal);
  }
  case Termination::timed_out:
    return fmt::format("timed out after {:g}s", std::chrono::duration<double>(timeout).count());
  case Termination::spawn_failed:
    return fmt::format("could not be started: {}", std::strerror(outcome.spawn_errno));
  case Termination::cancelled:
    return "was cancelled";
  }
  return "ended in an unknown way";
}

std::string last_lines(const std::string& text, std::size_t max_lines) {
  std::size_t end = text.size();
  while (end > 0 && text[end - 1] == '\n') {
    --end;
  }
  std::size_t begin = end;
  std::size_t lines = 0;
  while (begin > 0) {
    if (text[begin - 1] == '\n' && ++lines == max_lines) {
      break;
    }
    --begin;
  }
  return text.substr(begin, end - begin);
}

} // namespace refbench::model
