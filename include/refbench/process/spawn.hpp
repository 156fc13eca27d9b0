#pragma once
// The one place that starts commands: a vfork-like clone and exec without a
// shell, stdin /dev/null, its own process group, signals reset, stderr tail
// kept, timeout → SIGTERM then SIGKILL to the group
// (docs/manual/measurement.md; docs/design.md, Processes).

#include <refbench/model/invocation.hpp>

#include <optional>
#include <string>
#include <string_view>

namespace refbench::process {

// Grace period between SIGTERM and SIGKILL on timeout.
inline constexpr std::chrono::seconds k_kill_grace{5};

// Runs `invocation` to completion and returns its outcome. When `cancel_fd`
// (≥ 0) becomes readable, the group is killed and the outcome is
// `cancelled`. After the leader exits, members left in its group are killed.
// Throws std::system_error only when the machine refuses pipes or pidfds.
model::Outcome run_process(const model::Invocation& invocation, int cancel_fd = -1);

// Makes every later spawn of this process lean, for the launcher, whose
// memory each command shares until its exec (docs/design.md, Peak RSS and
// its floor): the pages of its read-only file mappings that it did not
// write leave its page tables, the data now and the text right before each
// clone, and its high-water mark is reset then; its signal dispositions are
// read now, once, instead of before each spawn (they must not change from
// now on). Called again, it drops the data again.
void make_spawns_lean();

// The executable `name` would run: `name` itself when it contains '/', else
// the first executable regular file in the ':'-separated `path`.
std::optional<std::string> find_executable(std::string_view name, std::string_view path);

// The value of `name` in a "NAME=value" list, if present.
std::optional<std::string_view> env_value(const std::vector<std::string>& env, std::string_view name);

} // namespace refbench::process
