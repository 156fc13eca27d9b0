#pragma once
// Facts about the machine a run measures on (docs/manual/output-files.md details): kernel,
// CPU model, logical CPUs, threads per core, frequency governor. Plain data:
// process/machine.hpp reads them, the run document records them.

#include <string>

namespace refbench::model {

struct MachineFacts {
  std::string kernel;            // e.g. "Linux 6.1.0"
  std::string machine;           // e.g. "x86_64"
  std::string cpu_model;         // "unknown" when /proc/cpuinfo has none
  unsigned cpus = 0;             // logical CPUs online
  unsigned threads_per_core = 0; // 0: unknown; 2 or more: SMT is on
  std::string governor;          // cpufreq scaling governor of cpu0, or "unknown (no cpufreq)"
};

} // namespace refbench::model
