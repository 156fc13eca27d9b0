#pragma once
// Helpers for the tests of src/git: a temporary directory, a git environment
// isolated from the user's configuration, a shell runner, and a small
// repository with tags and a branch.

#include <doctest/doctest.h>

#include "scratch_dir.hpp"

#include <refbench/process/spawn.hpp>
#include <refbench/util/error.hpp>

#include <cstdlib>
#include <filesystem>
#include <functional>
#include <optional>
#include <stdexcept>
#include <string>
#include <unistd.h> // environ
#include <utility>
#include <vector>

namespace refbench::test {

// A fresh directory under the temp dir, removed with its contents on destruction.
using TempDir = ScratchDir;

// For its lifetime, git ignores the user's and the system's configuration,
// commits under a fixed identity, allows file:// submodules, and is not
// pointed at another repository (as inside a git hook). Restores the old values.
class IsolatedGitEnvironment {
public:
  IsolatedGitEnvironment() {
    set("GIT_CONFIG_GLOBAL", "/dev/null");
    set("GIT_CONFIG_NOSYSTEM", "1");
    set("GIT_AUTHOR_NAME", "refbench");
    set("GIT_AUTHOR_EMAIL", "refbench@example.invalid");
    set("GIT_COMMITTER_NAME", "refbench");
    set("GIT_COMMITTER_EMAIL", "refbench@example.invalid");
    set("GIT_CONFIG_COUNT", "1");
    set("GIT_CONFIG_KEY_0", "protocol.file.allow");
    set("GIT_CONFIG_VALUE_0", "always");
    for (const char* name : {"GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE", "GIT_CONFIG_PARAMETERS"}) {
      set(name, std::nullopt);
    }
  }
  IsolatedGitEnvironment(const IsolatedGitEnvironment&) = delete;
  IsolatedGitEnvironment& operator=(const IsolatedGitEnvironment&) = delete;
  ~IsolatedGitEnvironment() {
    for (auto it = m_saved.rbegin(); it != m_saved.rend(); ++it) {
      apply(it->first, it->second);
    }
  }

private:
  void set(const std::string& name, const std::optional<std::string>& value) {
    const char* old = std::getenv(name.c_str());
    m_saved.emplace_back(name, old ? std::optional<std::string>(old) : std::nullopt);
    apply(name, value);
  }
  static void apply(const std::string& name, const std::optional<std::string>& value) {
    if (value) {
      ::setenv(name.c_str(), value->c_str(), 1);
    } else {
      ::unsetenv(name.c_str());
    }
  }

  std::vector<std::pair<std::string, std::optional<std::string>>> m_saved;
};

// Runs `script` with /bin/sh -c (under `set -e`) in `cwd`; fails the test when
// it fails. Returns its stdout without the trailing newline.
inline std::string sh(const std::string& script, const std::string& cwd) {
  model::Invocation invocation;
  invocation.argv = {"/bin/sh", "-c", "set -e\n" + script};
  for (char** entry = environ; *entry != nullptr; ++entry) {
    invocation.env.emplace_back(*entry);
  }
  invocation.cwd = cwd;
  invocation.capture_stdout = true;
  auto outcome = process::run_process(invocation);
  INFO("script: " << script);
  INFO("stderr: " << outcome.stderr_tail);
  REQUIRE(model::succeeded(outcome));
  auto text = outcome.stdout_text;
  while (!text.empty() && text.back() == '\n') {
    text.pop_back();
  }
  return text;
}

// Creates `dir`/repo: main has commits one (annotated tag v1.2.0), two (tags
// v1.10.0-rc1 and v1.2.0-beta; dir/zeros.bin) and three; feat/x branches off
// two with x.txt. Returns the repository's path.
inline std::string create_history_repo(const TempDir& dir) {
  sh(R"(git init -q -b main repo
cd repo
printf 'one\n' > a.txt
git add a.txt
git commit -q -m one
git tag -a -m 'release 1.2.0' v1.2.0
printf 'two\n' > a.txt
mkdir dir
head -c 1000 /dev/zero > dir/zeros.bin
git add -A
git commit -q -m two
git tag v1.10.0-rc1
git tag -a -m beta v1.2.0-beta
git checkout -q -b feat/x
printf 'x\n' > x.txt
git add x.txt
git commit -q -m x
git checkout -q main
printf 'three\n' > a.txt
git commit -q -a -m three
)",
     dir.path().string());
  return dir / "repo";
}

// The line main would print for the RefusedError `action` throws; "" when it
// throws none.
inline std::string refusal_line(const std::function<void()>& action) {
  try {
    action();
  } catch (const RefusedError& error) {
    return format_error_line(error);
  }
  return "";
}

} // namespace refbench::test
