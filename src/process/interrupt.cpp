#include <refbench/process/interrupt.hpp>
#include <refbench/util/error.hpp>

#include <atomic>
#include <csignal>
#include <fcntl.h>
#include <unistd.h>

namespace refbench::process {
namespace {

std::atomic<int> g_signal{0};
int g_pipe[2] = {-1, -1};

extern "C" void on_interrupt(int signal_number) {
  int expected = 0;
  g_signal.compare_exchange_strong(expected, signal_number);
  if (g_pipe[1] >= 0) {
    char byte = 1;
    [[maybe_unused]] auto n = ::write(g_pipe[1], &byte, 1);
  }
}

} // namespace

void install_interrupt_handlers() {
  if (g_pipe[0] >= 0) {
    return;
  }
  if (::pipe2(g_pipe, O_CLOEXEC | O_NONBLOCK) != 0) {
    g_pipe[0] = g_pipe[1] = -1;
  }
  struct sigaction action {};
  action.sa_handler = on_interrupt;
  sigemptyset(&action.sa_mask);
  action.sa_flags = SA_RESTART;
  ::sigaction(SIGINT, &action, nullptr);
  ::sigaction(SIGTERM, &action, nullptr);
  ::signal(SIGPIPE, SIG_IGN);
  // Past a file-size limit (ulimit -f) a write then fails with EFBIG, which
  // ends the run as out of disk space with its journal whole, instead of the
  // signal killing refbench mid-line. Spawned commands get the default back.
  ::signal(SIGXFSZ, SIG_IGN);
}

int interrupt_fd() { return g_pipe[0]; }

int interrupt_signal() { return g_signal.load(); }

void throw_if_interrupted() {
  if (int signal_number = g_signal.load(); signal_number != 0) {
    throw InterruptedError(signal_number);
  }
}

} // namespace refbench::process
