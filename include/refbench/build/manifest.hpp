#pragma once
// The arms' built trees as the verdict's evidence (docs/manual/security.md):
// what every entry of a tree is once it is built — its kind, mode, size,
// inode, modification and change times, a symlink's target and a regular
// file's SHA-256 — so that a change made to either arm's tree while the
// rounds run (by the other arm's benchmarked code, say) is found and the
// run becomes an ERROR naming the files.

#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace refbench::build {

// One entry of a tree as lstat(2) (and, for a regular file, its bytes) saw it.
struct EntryFacts {
  char kind = 'o';        // 'f' regular file, 'l' symlink, 'd' directory, 'o' anything else
  std::uint32_t mode = 0; // permission bits
  std::uint64_t size = 0;
  std::uint64_t inode = 0;
  std::int64_t mtime_ns = 0;
  std::int64_t ctime_ns = 0; // no unprivileged call sets it back: an undone change still shows
  std::string target;        // a symlink's
  std::string sha256;        // a regular file's; "" when it could not be read
};

// Whether `path` (relative to a tree's root, '/'-separated) matches one of
// `globs` (fnmatch without FNM_PATHNAME: '*' crosses '/', so
// "*/__pycache__/*" matches at any depth).
bool matches_writable(const std::string& path, const std::vector<std::string>& globs);

// Whether the regular file `path` is a program: an execute bit set, or
// bytes that start "#!" or as an ELF object (docs/manual/security.md).
bool is_program(const std::filesystem::path& path);

class TreeManifest {
public:
  TreeManifest() = default;

  // Records every entry under `root` without following symlinks, hashing
  // the regular files' bytes; leaves out the root's `.git` entry (a
  // worktree's link to its repository) and the paths matching `writable`,
  // except the programs among them (is_program), which no glob exempts: a
  // directory that matches is still walked for them. `label` names the tree in messages
  // ("the baseline's tree"). Throws RefusedError when `root` is not a
  // directory.
  static TreeManifest take(const std::filesystem::path& root, std::string label,
                           const std::vector<std::string>& writable);

  // What changed since `take`, one line per entry, sorted by path:
  // "bin/work (content)", "lib/x.so (added)", "old (removed)",
  // "run.sh (mode 755 → 777)". Quick (`rehash` false): lstat only — size,
  // mode, inode, link target, mtime and ctime; with `rehash`, the regular
  // files' bytes are hashed again too. A directory's times are not
  // compared (adding a file changes them), its entries are.
  std::vector<std::string> changes(bool rehash) const;

  const std::filesystem::path& root() const { return m_root; }
  const std::string& label() const { return m_label; }
  std::size_t files() const;   // regular files recorded
  std::uint64_t bytes() const; // their sizes' sum
  std::size_t entries() const { return m_entries.size(); }
  // Entries that matched a writable glob and were left out when taken.
  std::size_t exempt() const { return m_exempt; }

private:
  std::filesystem::path m_root;
  std::string m_label;
  std::vector<std::string> m_writable;
  std::size_t m_exempt = 0;
  std::map<std::string, EntryFacts> m_entries; // by path relative to the root
};

// The first `limit` of `changes` joined with ", ", then "and N more" —
// for a one-line message.
std::string summarize_changes(const std::vector<std::string>& changes, std::size_t limit = 5);

} // namespace refbench::build
