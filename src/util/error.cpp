#include <refbench/util/error.hpp>
#include <refbench/util/strings.hpp>

#include <csignal>

namespace refbench {

InterruptedError::InterruptedError(int signal_number, bool results_written)
    : Error(signal_number == SIGTERM ? ExitCode::interrupted_term : ExitCode::interrupted_int,
            signal_number == SIGTERM ? "terminated (SIGTERM)" : "interrupted (SIGINT)",
            results_written ? "the results measured until then were written; analyse them with `refbench analyze "
                              "<out>/journal.jsonl`"
                            : "it came before anything was measured, so no results were written"),
      m_signal(signal_number) {}

std::string format_error_line(const Error& error) {
  std::string line = "refbench: error: ";
  line += util::printable(error.what()); // names from configs and inputs reach terminals and CI logs
  if (!error.hint().empty()) {
    line += " — ";
    line += util::printable(error.hint(), "\n"); // a hint may list one item a line
  }
  return line;
}

} // namespace refbench
