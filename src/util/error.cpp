#include <refbench/util/error.hpp>

#include <csignal>

namespace refbench {

InterruptedError::InterruptedError(int signal_number)
    : Error(signal_number == SIGTERM ? ExitCode::interrupted_term : ExitCode::interrupted_int,
            signal_number == SIGTERM ? "terminated (SIGTERM)" : "interrupted (SIGINT)",
            "partial results were written; analyse them with `refbench analyze <out>/journal.jsonl`"),
      m_signal(signal_number) {}

std::string format_error_line(const Error& error) {
  std::string line = "refbench: error: ";
  line += error.what();
  if (!error.hint().empty()) {
    line += " — ";
    line += error.hint();
  }
  return line;
}

} // namespace refbench
