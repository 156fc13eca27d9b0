#pragma once
// Building an arm (docs/manual/commands.md#refbench-run): the configured command in the arm's
// worktree, stdout and stderr to <out>/logs/build-<arm>.log, timed.

#include <refbench/config/config.hpp>

#include <chrono>
#include <string>
#include <vector>

namespace refbench::build {

// One arm to build.
struct ArmBuild {
  std::string arm;      // "baseline" or "candidate"
  std::string worktree; // where the command runs
  std::string log_path; // stdout + stderr of the build
};

// How long each arm's build took, in the order given.
struct BuildTimes {
  std::vector<double> seconds;
};

// Number of log lines shown when a build fails.
inline constexpr std::size_t k_build_log_tail_lines = 40;
// The most of a build log read to show its last lines.
inline constexpr std::size_t k_build_log_tail_bytes = 64 * 1024;

// Builds `arms` with `command` (+ `env` over `base_env`, `timeout`), one
// after the other or, with `parallel`, at once. A failing or timed-out build
// prints the last k_build_log_tail_lines of its log to stderr and throws
// RefusedError naming the arm; an interrupt throws InterruptedError.
BuildTimes build_arms(const std::vector<ArmBuild>& arms, const config::Command& command,
                      const std::vector<std::string>& env, const std::vector<std::string>& base_env,
                      std::chrono::nanoseconds timeout, bool parallel);

// The last `lines` lines of the file at `path` ("" if unreadable), read
// backwards from its end: at most k_build_log_tail_bytes, so a huge log or
// line costs no more (a line cut at the bound starts with "…").
std::string log_tail(const std::string& path, std::size_t lines);

} // namespace refbench::build
