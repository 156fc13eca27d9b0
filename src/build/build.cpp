#include <refbench/build/build.hpp>
#include <refbench/process/environment.hpp>
#include <refbench/process/interrupt.hpp>
#include <refbench/process/spawn.hpp>
#include <refbench/util/error.hpp>
#include <refbench/util/strings.hpp>

#include <refbench/util/fd.hpp>

#include <algorithm>
#include <fcntl.h>
#include <fmt/format.h>
#include <iostream>
#include <sstream>
#include <sys/stat.h>
#include <thread>
#include <unistd.h>

namespace refbench::build {
namespace {

model::Invocation build_invocation(const ArmBuild& arm, const config::Command& command,
                                   const std::vector<std::string>& env, const std::vector<std::string>& base_env,
                                   std::chrono::nanoseconds timeout) {
  model::Invocation invocation;
  invocation.argv = command.is_shell() ? std::vector<std::string>{"/bin/sh", "-c", command.shell} : command.argv;
  invocation.env = process::with_overrides(base_env, env); // config entries override inherited ones
  invocation.cwd = arm.worktree;
  invocation.timeout = timeout;
  invocation.stdout_path = arm.log_path;
  invocation.stderr_to_stdout = true;
  return invocation;
}

// Runs one build; the outcome says how it ended.
model::Outcome run_build(const model::Invocation& invocation) {
  return process::run_process(invocation, process::interrupt_fd());
}

} // namespace

std::string log_tail(const std::string& path, std::size_t lines) {
  const util::Fd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
  struct stat st {};
  if (!fd.valid() || ::fstat(fd.get(), &st) != 0 || st.st_size <= 0) {
    return "";
  }
  // Blocks backwards from the end until `lines` lines are whole (a line
  // break before the first of them) or k_build_log_tail_bytes are read.
  constexpr std::size_t k_block = 4096;
  std::size_t start = static_cast<std::size_t>(st.st_size);
  std::string text;
  auto line_breaks = [&text] {
    const auto body = util::trim_right(text, "\n");
    return static_cast<std::size_t>(std::count(body.begin(), body.end(), '\n'));
  };
  while (start > 0 && text.size() < k_build_log_tail_bytes && line_breaks() < lines) {
    const std::size_t length = std::min({k_block, start, k_build_log_tail_bytes - text.size()});
    std::string block(length, '\0');
    if (::pread(fd.get(), block.data(), length, static_cast<off_t>(start - length)) != static_cast<ssize_t>(length)) {
      break;
    }
    start -= length;
    text.insert(0, block);
  }
  const bool first_line_cut = start > 0 && line_breaks() < lines;
  const std::string tail = model::last_lines(text, lines);
  return first_line_cut ? "…" + tail : tail;
}

BuildTimes build_arms(const std::vector<ArmBuild>& arms, const config::Command& command,
                      const std::vector<std::string>& env, const std::vector<std::string>& base_env,
                      std::chrono::nanoseconds timeout, bool parallel) {
  std::vector<model::Invocation> invocations;
  for (const auto& arm : arms) {
    invocations.push_back(build_invocation(arm, command, env, base_env, timeout));
  }
  std::vector<model::Outcome> outcomes(arms.size());
  if (parallel) {
    std::vector<std::thread> threads;
    for (std::size_t i = 0; i < arms.size(); ++i) {
      threads.emplace_back([&, i] { outcomes[i] = run_build(invocations[i]); });
    }
    for (auto& thread : threads) {
      thread.join();
    }
  } else {
    for (std::size_t i = 0; i < arms.size(); ++i) {
      outcomes[i] = run_build(invocations[i]);
      if (!model::succeeded(outcomes[i])) {
        break; // no point building the other arm
      }
    }
  }
  BuildTimes times;
  for (std::size_t i = 0; i < arms.size(); ++i) {
    const auto& outcome = outcomes[i];
    if (outcome.termination == model::Termination::cancelled || process::interrupt_signal() != 0) {
      process::throw_if_interrupted();
    }
    if (!model::succeeded(outcome)) { // arms are checked in order, so a skipped arm is never reached
      std::cerr << fmt::format("refbench: the {} build {}; the last lines of {}:\n", arms[i].arm,
                               model::describe(outcome, timeout), arms[i].log_path);
      std::string tail = log_tail(arms[i].log_path, k_build_log_tail_lines);
      std::istringstream lines(tail);
      for (std::string line; std::getline(lines, line);) {
        std::cerr << "  | " << util::printable(line, "\t") << "\n";
      }
      throw RefusedError(
          fmt::format("the {} build {} (log: {})", arms[i].arm, model::describe(outcome, timeout), arms[i].log_path),
          "fix the build of that ref, or the [build] command in refbench.toml");
    }
    times.seconds.push_back(outcome.readings[model::Reading::wall]);
  }
  return times;
}

} // namespace refbench::build
