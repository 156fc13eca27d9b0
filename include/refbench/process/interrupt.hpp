#pragma once
// SIGINT/SIGTERM during a run: the handlers only record the signal and wake
// a self-pipe; the code waiting on a child notices, cancels it and throws
// InterruptedError, so journals and partial reports are still written.

namespace refbench::process {

// Installs the SIGINT and SIGTERM handlers and ignores SIGPIPE and SIGXFSZ
// (writes past `ulimit -f` fail with EFBIG instead). Idempotent.
void install_interrupt_handlers();

// A descriptor that becomes (and stays) readable once SIGINT or SIGTERM
// arrived; -1 before install_interrupt_handlers().
int interrupt_fd();

// The first signal received (SIGINT or SIGTERM), or 0.
int interrupt_signal();

// Throws InterruptedError when a signal has arrived.
void throw_if_interrupted();

} // namespace refbench::process
