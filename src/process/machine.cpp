#include <refbench/process/machine.hpp>

#include <charconv>
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

bool parse_unsigned(std::string_view text, unsigned& value) {
  auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  return error == std::errc() && end == text.data() + text.size();
}

} // namespace

unsigned count_cpu_list(const std::string& list) {
  unsigned count = 0;
  std::size_t start = 0;
  while (start < list.size()) {
    std::size_t end = list.find(',', start);
    std::string_view range(list.data() + start, (end == std::string::npos ? list.size() : end) - start);
    start = end == std::string::npos ? list.size() : end + 1;
    unsigned low = 0;
    unsigned high = 0;
    auto dash = range.find('-');
    if (!parse_unsigned(range.substr(0, dash), low) ||
        !parse_unsigned(dash == std::string_view::npos ? range : range.substr(dash + 1), high) || high < low) {
      return 0;
    }
    count += high - low + 1;
  }
  return count;
}

MachineFacts machine_facts() {
  MachineFacts facts;
  utsname names{};
  ::uname(&names);
  facts.kernel = std::string(names.sysname) + " " + names.release;
  facts.machine = names.machine;
  facts.cpu_model = cpu_model();
  facts.cpus = std::thread::hardware_concurrency();
  facts.threads_per_core = count_cpu_list(first_line("/sys/devices/system/cpu/cpu0/topology/thread_siblings_list"));
  facts.governor = first_line("/sys/devices/system/cpu/cpu0/cpufreq/scaling_governor");
  if (facts.governor.empty()) {
    facts.governor = "unknown (no cpufreq)";
  }
  return facts;
}

} // namespace refbench::process
