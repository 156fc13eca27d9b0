#pragma once
// Git refs as refbench understands them (docs/manual/commands.md#refbench-run, refs): running git,
// resolving refs and keywords to commits, and naming the arms' directories.
// Every git process goes through process::run_process.

#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace refbench::git {

// A git command that did not succeed. Low level: orchestration turns it into
// a RefusedError that says what to do.
class GitError : public std::runtime_error {
public:
  // `what` names the command and its fate; `exit_code` is -1 when git did not
  // exit normally; `stderr_tail` is the end of git's stderr.
  GitError(const std::string& what, int exit_code, std::string stderr_tail)
      : std::runtime_error(what), m_exit_code(exit_code), m_stderr_tail(std::move(stderr_tail)) {}
  int exit_code() const { return m_exit_code; }
  const std::string& stderr_tail() const { return m_stderr_tail; }

private:
  int m_exit_code;
  std::string m_stderr_tail;
};

// A ref resolved to a commit: `ref` as the user typed it (keywords included),
// `sha` the full commit hash, `dir_name` the arm's directory name.
struct ResolvedRef {
  std::string ref; // as given (a keyword stays a keyword)
  std::string sha;
  std::string dir_name;
  std::string name; // what it named: the tag of latest-release, the branch of default-branch, else `ref`
};

// Runs `git -C repo args...` with the current environment (minus variables
// that would point git at another repository) and returns its stdout without
// trailing newlines. Throws GitError on failure, InterruptedError when
// `cancel_fd` fired because of SIGINT/SIGTERM.
std::string run_git(const std::string& repo, const std::vector<std::string>& args, int cancel_fd = -1);

// The directory name of `ref` at `sha` (docs/manual/commands.md): '/' → "--", other chars
// outside [A-Za-z0-9._-] → '_' (one per UTF-8 code point), then "-<sha[:12]>".
// Never empty, never starts with '.' or '-', never contains "..", ≤ 100 bytes.
std::string directory_name(std::string_view ref, std::string_view sha);

// The newest release tag (^v?[0-9]+\.[0-9]+\.[0-9]+$) of `tags` in numeric
// version order, pre-releases excluded; of equal versions, "v1.2.0" wins over
// "1.2.0". nullopt: none.
std::optional<std::string> latest_release(const std::vector<std::string>& tags);

// The longest ref `resolve` takes (git's own refs stay far below it).
inline constexpr std::size_t k_max_ref_bytes = 1024;

// Resolves `ref` in `repo` to a commit. Keywords: latest-release,
// default-branch (what origin/HEAD points to, e.g. "origin/main", else the
// first of main, master, origin/main, origin/master that exists), merge-base
// (of `merge_base_with`, the candidate's commit, and the default branch).
// Throws RefusedError with a hint for an empty ref, one starting with '-',
// one longer than k_max_ref_bytes, one that does not resolve to a commit, or
// a keyword with nothing to name.
ResolvedRef resolve(const std::string& repo, const std::string& ref,
                    const std::optional<std::string>& merge_base_with = std::nullopt);

// The baseline of a pull request: the merge base of its `base` and `head`
// commits, named "merge-base". Throws RefusedError when either is not a full
// hex SHA, and (with a fetch-depth hint) when either commit is missing, e.g.
// in a shallow checkout.
ResolvedRef resolve_pull_request_base(const std::string& repo, const std::string& base, const std::string& head);

// True when `dir` is inside a git repository (or is one).
bool is_repository(const std::string& dir);

} // namespace refbench::git
