#include <refbench/git/worktree.hpp>

#include <refbench/git/refs.hpp>
#include <refbench/model/invocation.hpp>
#include <refbench/util/error.hpp>

#include <charconv>
#include <filesystem>
#include <utility>

namespace refbench::git {

namespace {

// `path` made absolute against the current directory, so git -C elsewhere and
// a later change of directory do not move it.
std::string absolute_path(const std::string& path) {
  return std::filesystem::absolute(path).lexically_normal().string();
}

// Git's own last words, falling back to our description of the failure.
std::string git_message(const GitError& error) {
  auto last = model::last_lines(error.stderr_tail(), 1);
  return last.empty() ? std::string(error.what()) : last;
}

void refuse_option_like(const std::string& sha) {
  if (sha.empty() || sha.front() == '-') {
    throw RefusedError("cannot create a worktree of '" + sha + "': not a commit", "resolve the ref first");
  }
}

} // namespace

Worktree Worktree::add(const std::string& repo, const std::string& sha, const std::string& path, int cancel_fd) {
  refuse_option_like(sha);
  Worktree worktree(absolute_path(repo), absolute_path(path));
  try {
    run_git(worktree.m_repo, {"worktree", "add", "--quiet", "--detach", "--force", worktree.m_path, sha}, cancel_fd);
  } catch (const GitError& error) {
    worktree.m_removed = true; // git cleans up after a failed add; the path may belong to someone else
    throw RefusedError("cannot create the worktree of " + sha + " at " + worktree.m_path + ": " + git_message(error),
                       "check that the path is new or empty, and that the disk has room");
  }
  if (std::filesystem::exists(std::filesystem::path(worktree.m_path) / ".gitmodules")) {
    try {
      run_git(worktree.m_path, {"submodule", "--quiet", "update", "--init", "--recursive"}, cancel_fd);
    } catch (const GitError& error) {
      throw RefusedError("cannot initialise the submodules of " + sha + " in " + worktree.m_path + ": " +
                             git_message(error),
                         "check that the submodules' URLs are reachable (git submodule update --init --recursive)");
    }
  }
  return worktree;
}

Worktree::Worktree(Worktree&& other) noexcept
    : m_repo(std::move(other.m_repo)), m_path(std::exchange(other.m_path, {})), m_keep(other.m_keep),
      m_removed(std::exchange(other.m_removed, true)) {}

Worktree& Worktree::operator=(Worktree&& other) noexcept {
  if (this != &other) {
    if (!m_keep) {
      remove();
    }
    m_repo = std::move(other.m_repo);
    m_path = std::exchange(other.m_path, {});
    m_keep = other.m_keep;
    m_removed = std::exchange(other.m_removed, true);
  }
  return *this;
}

Worktree::~Worktree() {
  if (!m_keep) {
    remove();
  }
}

void Worktree::remove() noexcept {
  if (m_removed || m_path.empty()) {
    return;
  }
  m_removed = true;
  try {
    // Twice --force: also a worktree still locked by an add that was
    // interrupted. Fails when the directory is gone or damaged; then clean up by hand.
    run_git(m_repo, {"worktree", "remove", "--force", "--force", m_path});
    return;
  } catch (...) {
  }
  try {
    run_git(m_repo, {"worktree", "unlock", m_path}); // prune leaves a locked entry alone
  } catch (...) {
  }
  try {
    // Delete recursively only what is a worktree (a .git file, not a
    // directory); an interrupted add may have left just an empty directory.
    std::error_code ignored;
    if (std::filesystem::is_regular_file(std::filesystem::path(m_path) / ".git", ignored)) {
      std::filesystem::remove_all(m_path, ignored);
    } else {
      std::filesystem::remove(m_path, ignored);
    }
    run_git(m_repo, {"worktree", "prune"});
  } catch (...) {
  }
}

std::uint64_t checkout_size_bytes(const std::string& repo, const std::string& sha) {
  // One size per line ("-" for submodules), so the capture limit covers
  // millions of files.
  auto sizes = run_git(repo, {"ls-tree", "-r", "--full-tree", "--format=%(objectsize)", "--end-of-options", sha});
  std::uint64_t total = 0;
  for (std::size_t begin = 0; begin < sizes.size();) {
    auto end = std::min(sizes.find('\n', begin), sizes.size());
    std::uint64_t size = 0;
    if (std::from_chars(sizes.data() + begin, sizes.data() + end, size).ec == std::errc{}) {
      total += size;
    }
    begin = end + 1;
  }
  return total;
}

} // namespace refbench::git
