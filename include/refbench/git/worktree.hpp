#pragma once
// The arms' checkouts (docs/manual/commands.md#refbench-run): detached git worktrees with submodules
// initialised, removed again at the end unless kept.

#include <cstdint>
#include <string>

namespace refbench::git {

// A detached worktree of a repository, removed when the object dies unless
// keep() was called. Move-only.
class Worktree {
public:
  // Checks out `sha` of `repo` at `path` (`git worktree add --detach --force`),
  // then initialises submodules recursively if it has a .gitmodules. Throws
  // RefusedError with git's message when either fails (nothing is left behind).
  static Worktree add(const std::string& repo, const std::string& sha, const std::string& path, int cancel_fd = -1);

  Worktree(Worktree&& other) noexcept;
  // Removes the worktree this one owned (unless kept), then takes `other`'s.
  Worktree& operator=(Worktree&& other) noexcept;
  Worktree(const Worktree&) = delete;
  Worktree& operator=(const Worktree&) = delete;
  // Calls remove() unless keep() was called.
  ~Worktree();

  // The worktree's absolute path.
  const std::string& path() const { return m_path; }

  // Leaves the worktree on disk when this object dies (--keep-worktrees).
  void keep() { m_keep = true; }

  // Removes the worktree (`git worktree remove --force`, else deleting the
  // directory and `git worktree prune`). Idempotent, best effort, never throws;
  // runs even after SIGINT (cleanup is not cancellable).
  void remove() noexcept;

private:
  Worktree(std::string repo, std::string path) : m_repo(std::move(repo)), m_path(std::move(path)) {}

  std::string m_repo;
  std::string m_path;
  bool m_keep = false;
  bool m_removed = false;
};

// The bytes a checkout of `sha` takes: the sum of its blob sizes (submodules
// not counted), for the disk preflight. Throws GitError when git fails.
std::uint64_t checkout_size_bytes(const std::string& repo, const std::string& sha);

} // namespace refbench::git
