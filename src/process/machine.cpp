#include <refbench/process/machine.hpp>

#include <refbench/process/cpus.hpp>

#include <fstream>
#include <sys/utsname.h>
#include <thread>

namespace refbench::process {
namespace {

std::string first_line(const std::string& path) {
  std::ifstream in(path);
  std::string line;
  std::getline(in, line);
  return line;
}

std::string cpu_model() {
  std::ifstream cpuinfo("/proc/cpuinfo");
  std::string line;
  while (std::getline(cpuinfo, line)) {
    if (line.rfind("model name", 0) == 0) {
      auto colon = line.find(':');
      return colon == std::string::npos ? line : line.substr(colon + 2);
    }
  }
  return "unknown";
}

} // namespace

model::MachineFacts machine_facts() {
  model::MachineFacts facts;
  utsname names{};
  ::uname(&names);
  facts.kernel = std::string(names.sysname) + " " + names.release;
  facts.machine = names.machine;
  facts.cpu_model = cpu_model();
  facts.cpus = std::thread::hardware_concurrency();
  auto siblings = parse_cpu_list(first_line("/sys/devices/system/cpu/cpu0/topology/thread_siblings_list"));
  facts.threads_per_core = siblings ? static_cast<unsigned>(siblings->size()) : 0;
  facts.governor = first_line("/sys/devices/system/cpu/cpu0/cpufreq/scaling_governor");
  if (facts.governor.empty()) {
    facts.governor = "unknown (no cpufreq)";
  }
  return facts;
}

} // namespace refbench::process
