#pragma once
// `/bin/sh -c SCRIPT` as an Invocation with a minimal environment, for the
// tests that spawn real processes.

#include <refbench/model/invocation.hpp>

#include <chrono>
#include <string>

namespace refbench::test {

// No timeout unless `timeout_seconds` > 0.
inline model::Invocation sh(const std::string& script, double timeout_seconds = 0) {
  model::Invocation invocation{{"/bin/sh", "-c", script}, {"PATH=/usr/bin:/bin"}, "", {}, ""};
  invocation.timeout = std::chrono::nanoseconds(static_cast<long long>(timeout_seconds * 1e9));
  return invocation;
}

} // namespace refbench::test
