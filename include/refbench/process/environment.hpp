#pragma once
// The environments refbench hands to what it spawns (docs/manual/security.md): never the credentials of the job, nor
// its channels into later workflow steps.

#include <array>
#include <string>
#include <string_view>
#include <vector>

namespace refbench::process {

// Variables no spawned process gets: GitHub and Actions credentials, and the
// files through which a step writes into later steps of its job (a command
// that appends to $GITHUB_ENV could plant variables in the step that posts
// with the token).
inline constexpr std::array<std::string_view, 14> k_scrubbed_variables{"GITHUB_TOKEN",
                                                                       "GH_TOKEN",
                                                                       "INPUT_GITHUB-TOKEN",
                                                                       "INPUT_GITHUB_TOKEN",
                                                                       "ACTIONS_RUNTIME_TOKEN",
                                                                       "ACTIONS_ID_TOKEN_REQUEST_TOKEN",
                                                                       "ACTIONS_ID_TOKEN_REQUEST_URL",
                                                                       "ACTIONS_CACHE_URL",
                                                                       "ACTIONS_RESULTS_URL",
                                                                       "GITHUB_ENV",
                                                                       "GITHUB_PATH",
                                                                       "GITHUB_OUTPUT",
                                                                       "GITHUB_STATE",
                                                                       "GITHUB_STEP_SUMMARY"};

// The calling process's environment as "NAME=value" entries.
std::vector<std::string> current_environment();

// `env` less k_scrubbed_variables and every variable whose name matches one
// of `patterns` (names or shell globs such as "AWS_*").
std::vector<std::string> without_secrets(const std::vector<std::string>& env, const std::vector<std::string>& patterns);

// `env` with `entries` ("NAME=value") added, each replacing an inherited
// variable of the same name.
std::vector<std::string> with_overrides(std::vector<std::string> env, const std::vector<std::string>& entries);

// What of `env` the launcher keeps: PATH and the sanitizers' options,
// nothing else (every command it spawns brings its own environment).
std::vector<std::string> launcher_environment(const std::vector<std::string>& env);

// Makes the calling process's /proc/<pid>/environ and memory unreadable to
// the commands it runs as the same (non-root) user: refbench's own
// environment may hold what the commands' environment does not
// (PR_SET_DUMPABLE 0); false when the kernel refuses.
bool hide_from_commands();

} // namespace refbench::process
