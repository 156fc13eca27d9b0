#pragma once
// The fuzz targets: one per reader of untrusted input, each calling its
// reader the way the command does. Shared by the libFuzzer binaries and the
// seeded mutation driver.

#include <span>
#include <string>
#include <string_view>

namespace refbench::fuzz {

// One reader: `read` runs it on `input`, throwing what the reader throws.
struct Target {
  const char* name;
  void (*read)(std::string_view input);
};

// Every target, in the order bench/fuzz.sh reports them.
std::span<const Target> targets();

// The target called `name`, or nullptr.
const Target* find_target(std::string_view name);

// How a reader answered one input.
enum class Outcome {
  read,          // it took the input
  refused,       // a UsageError or RefusedError: exit 2 or 3 with a message
  internal_error // any other exception; its text is in `what`
};

// Runs `target` on `input`.
Outcome run(const Target& target, std::string_view input, std::string& what);

} // namespace refbench::fuzz
