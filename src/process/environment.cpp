#include <refbench/process/environment.hpp>

#include <algorithm>
#include <fnmatch.h>
#include <sys/prctl.h>
#include <unistd.h> // environ (with _GNU_SOURCE, which g++ defines)

namespace refbench::process {

std::vector<std::string> current_environment() {
  std::vector<std::string> env;
  for (char** entry = environ; *entry != nullptr; ++entry) {
    env.emplace_back(*entry);
  }
  return env;
}

std::vector<std::string> without_secrets(const std::vector<std::string>& env,
                                         const std::vector<std::string>& patterns) {
  auto secret = [&](const std::string& name) {
    return std::find(k_scrubbed_variables.begin(), k_scrubbed_variables.end(), name) != k_scrubbed_variables.end() ||
           std::any_of(patterns.begin(), patterns.end(),
                       [&](const std::string& pattern) { return ::fnmatch(pattern.c_str(), name.c_str(), 0) == 0; });
  };
  std::vector<std::string> kept;
  for (const auto& entry : env) {
    if (!secret(entry.substr(0, entry.find('=')))) {
      kept.push_back(entry);
    }
  }
  return kept;
}

std::vector<std::string> with_overrides(std::vector<std::string> env, const std::vector<std::string>& entries) {
  for (const auto& entry : entries) {
    const auto name = entry.substr(0, entry.find('=') + 1);
    std::erase_if(env, [&](const std::string& e) { return e.starts_with(name); });
    env.push_back(entry);
  }
  return env;
}

std::vector<std::string> launcher_environment(const std::vector<std::string>& env) {
  std::vector<std::string> kept;
  for (const auto& entry : env) {
    const std::string_view name = std::string_view(entry).substr(0, entry.find('='));
    if (name == "PATH" || name.ends_with("SAN_OPTIONS")) {
      kept.push_back(entry);
    }
  }
  return kept;
}

bool hide_from_commands() { return ::prctl(PR_SET_DUMPABLE, 0, 0, 0, 0) == 0; }

} // namespace refbench::process
