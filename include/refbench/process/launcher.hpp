#pragma once
// The real Executor. Invocations are spawned by a tiny long-lived launcher
// process (this binary re-executed in a hidden mode at start-up), so that
// refbench's own growing memory never enters a child's peak RSS (docs/manual/measurement.md).

#include <refbench/process/cpus.hpp>
#include <refbench/process/executor.hpp>
#include <refbench/process/sandbox.hpp>
#include <refbench/util/fd.hpp>

#include <memory>
#include <string>
#include <string_view>
#include <sys/types.h>

namespace refbench::process {

// argv[1] that puts the binary into launcher mode.
inline constexpr std::string_view k_launcher_argument = "__launcher";
// The descriptor on which the launcher finds its socket.
inline constexpr int k_launcher_fd = 3;

class Launcher final : public Executor {
public:
  // Starts `self_exe` (normally /proc/self/exe) in launcher mode and waits
  // for its hello with the measured RSS floor; throws std::system_error or
  // MeasurementError when it cannot be started.
  static std::unique_ptr<Launcher> start(const std::string& self_exe = "/proc/self/exe");
  ~Launcher() override;
  Launcher(const Launcher&) = delete;
  Launcher& operator=(const Launcher&) = delete;

  // Runs `invocation` in the launcher. When SIGINT/SIGTERM arrive meanwhile,
  // the child's group is killed and InterruptedError is thrown.
  model::Outcome run(const model::Invocation& invocation) override;
  model::RssProbe rss_probe() const override { return m_probe; }
  // Restricts the launcher, and so every command it spawns from now on, to
  // `cpus` (docs/manual/measurement.md isolate); false when the kernel refuses.
  bool pin(const model::CpuList& cpus) { return set_affinity(m_serving, cpus); }
  // Moves the launcher, and so every command it spawns from now on, into
  // the box of `paths` (docs/manual/security.md); what is in force, with
  // the reason when no box could be made. Throws MeasurementError when the
  // launcher dies.
  SandboxState box(const BoxPaths& paths);
  // The launcher's process id (refbench's child).
  pid_t pid() const { return m_pid; }

private:
  Launcher(util::Fd socket, pid_t pid, model::RssProbe probe);
  util::Fd m_socket;
  pid_t m_pid;
  pid_t m_serving; // the process that spawns the commands: m_pid, or its copy in the box
  model::RssProbe m_probe;
};

// The launcher mode's main: reports its RSS floor, then serves invocations
// on `socket_fd` until EOF. Returns the process exit status.
int launcher_main(int socket_fd);

// Peak RSS (VmHWM) of the calling process in bytes, or 0 when unreadable.
std::int64_t own_peak_rss_bytes();

} // namespace refbench::process
