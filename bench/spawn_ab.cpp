// The launcher's spawn against posix_spawn in one process, interleaved
// invocation by invocation, so that the machine's drift and the process's
// context are the same for both: process::run_process after
// make_spawns_lean (as the launcher spawns) and posix_spawn + wait4 timed
// exactly as bench/spawn_loop.c does. Prints the two medians in seconds.
// Usage: refbench_spawn_ab N PROGRAM
#include <refbench/process/spawn.hpp>
#include <refbench/util/clock.hpp>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <spawn.h>
#include <string>
#include <sys/resource.h>
#include <sys/wait.h>
#include <vector>

extern char** environ;

namespace {

double median(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  return values[values.size() / 2];
}

} // namespace

int main(int argc, char** argv) {
  if (argc != 3) {
    std::fprintf(stderr, "usage: refbench_spawn_ab N PROGRAM\n");
    return 2;
  }
  using namespace refbench;
  const long n = std::strtol(argv[1], nullptr, 10);
  process::make_spawns_lean();
  std::vector<std::string> env;
  for (char** entry = environ; *entry != nullptr; ++entry) {
    env.emplace_back(*entry);
  }
  model::Invocation invocation;
  invocation.argv = {argv[2]};
  invocation.env = env;
  std::vector<double> launcher;
  std::vector<double> bare;
  for (long i = 0; i < n; ++i) {
    const auto outcome = process::run_process(invocation);
    if (!model::succeeded(outcome)) {
      std::fprintf(stderr, "refbench_spawn_ab: %s did not succeed\n", argv[2]);
      return 1;
    }
    launcher.push_back(outcome.readings[model::Reading::wall]);
    pid_t pid = 0;
    int status = 0;
    rusage usage{};
    const double start = util::monotonic_seconds();
    if (::posix_spawn(&pid, argv[2], nullptr, nullptr, argv + 2, environ) != 0) {
      std::perror("posix_spawn");
      return 1;
    }
    ::wait4(pid, &status, 0, &usage);
    bare.push_back(util::monotonic_seconds() - start);
  }
  std::printf("%.9f %.9f\n", median(launcher), median(bare));
  return 0;
}
