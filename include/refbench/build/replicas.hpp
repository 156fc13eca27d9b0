#pragma once
// Replicas of a built arm (docs/manual/measurement.md, "Replicas"):
// byte-identical copies of its worktree made as fresh files (read and
// written, never hard links or reflinks), so that each copy's pages land
// somewhere else in memory. With globs, only the matching files are copied
// and the rest are symlinks to the original.

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

namespace refbench::build {

// Copies the regular file `from` to the new file `to` by reading and
// writing (never copy_file_range or a reflink, which may share extents),
// with its mode; returns 0 or the errno.
int copy_fresh_file(const std::filesystem::path& from, const std::filesystem::path& to);

// What copying `tree` would write: the bytes of the regular files that
// `globs` match (paths relative to `tree`, fnmatch with FNM_PATHNAME; none:
// every file), per copy.
std::uint64_t replica_bytes(const std::filesystem::path& tree, const std::vector<std::string>& globs);

// Copies of built worktrees, removed again on destruction unless kept.
class Replicas {
public:
  Replicas() = default;
  Replicas(const Replicas&) = delete;
  Replicas& operator=(const Replicas&) = delete;
  Replicas(Replicas&& other) noexcept;
  Replicas& operator=(Replicas&& other) noexcept;
  ~Replicas();

  // Makes `count` - 1 copies of `tree` beside it (`<tree>.r1` …), so that
  // with the original there are `count` replicas; returns all of them,
  // the original first. Copies `globs`' matches only when `globs` is not
  // empty (directories are made, other files become symlinks to the
  // original's). Throws RefusedError naming the path when a copy fails
  // (e.g. the disk is full), after removing what it made.
  std::vector<std::string> add(const std::filesystem::path& tree, int count, const std::vector<std::string>& globs);

  // Leaves the copies in place at destruction.
  void keep() { m_keep = true; }

private:
  std::vector<std::filesystem::path> m_made;
  bool m_keep = false;
};

} // namespace refbench::build
