#include <refbench/build/manifest.hpp>
#include <refbench/util/error.hpp>
#include <refbench/util/sha256.hpp>

#include <algorithm>
#include <array>
#include <fmt/format.h>
#include <fnmatch.h>
#include <fstream>
#include <string_view>
#include <sys/stat.h>
#include <system_error>

namespace refbench::build {
namespace {

namespace fs = std::filesystem;

char kind_of(mode_t mode) {
  if (S_ISREG(mode)) {
    return 'f';
  }
  if (S_ISLNK(mode)) {
    return 'l';
  }
  return S_ISDIR(mode) ? 'd' : 'o';
}

std::int64_t nanoseconds(const timespec& t) { return static_cast<std::int64_t>(t.tv_sec) * 1'000'000'000 + t.tv_nsec; }

// `path`'s facts by lstat, its bytes hashed when `hash` and it is a regular
// file; nullopt when it is gone.
std::optional<EntryFacts> facts_of(const fs::path& path, bool hash) {
  struct stat info {};
  if (::lstat(path.c_str(), &info) != 0) {
    return std::nullopt;
  }
  EntryFacts facts;
  facts.kind = kind_of(info.st_mode);
  facts.mode = static_cast<std::uint32_t>(info.st_mode & 07777);
  facts.size = static_cast<std::uint64_t>(info.st_size);
  facts.inode = static_cast<std::uint64_t>(info.st_ino);
  facts.mtime_ns = nanoseconds(info.st_mtim);
  facts.ctime_ns = nanoseconds(info.st_ctim);
  if (facts.kind == 'l') {
    std::error_code ec;
    facts.target = fs::read_symlink(path, ec).string();
  }
  if (facts.kind == 'f' && hash) {
    facts.sha256 = util::sha256_file(path.string()).value_or("");
  }
  return facts;
}

struct Walk {
  std::map<std::string, EntryFacts> entries;
  std::size_t exempt = 0; // entries a writable glob left out
};

// Every entry under `root` but its `.git` and the `writable` paths that are
// not programs, by relative path; hashed when `hash`.
Walk walk(const fs::path& root, const std::vector<std::string>& writable, bool hash) {
  Walk found;
  std::error_code ec;
  int exempt_below = -1; // the depth of the writable directory being walked; -1: none
  fs::recursive_directory_iterator it(root, fs::directory_options::none, ec);
  for (; !ec && it != fs::recursive_directory_iterator(); it.increment(ec)) {
    const auto relative = it->path().lexically_relative(root).generic_string();
    if (it.depth() == 0 && relative == ".git") {
      it.disable_recursion_pending();
      continue;
    }
    if (exempt_below >= 0 && it.depth() <= exempt_below) {
      exempt_below = -1; // out of it
    }
    // a writable directory is left out with what it holds, but for the
    // programs in it: it is walked on for them
    if (exempt_below >= 0 || matches_writable(relative, writable)) {
      if (!is_program(it->path())) {
        std::error_code kind;
        if (exempt_below < 0 && it->is_directory(kind) && !it->is_symlink(kind)) {
          exempt_below = it.depth();
        }
        ++found.exempt;
        continue;
      }
    }
    if (auto facts = facts_of(it->path(), hash)) {
      found.entries.emplace(relative, std::move(*facts));
    }
  }
  return found;
}

std::string mode_text(std::uint32_t mode) { return fmt::format("{:o}", mode); }

// How `now` differs from `then`, or "" when it does not (times of
// directories not compared; bytes only when both were hashed).
std::string difference(const EntryFacts& then, const EntryFacts& now) {
  if (then.kind != now.kind) {
    return "replaced";
  }
  if (then.mode != now.mode) {
    return fmt::format("mode {} → {}", mode_text(then.mode), mode_text(now.mode));
  }
  if (then.kind == 'd') {
    return "";
  }
  if (then.kind == 'l' && then.target != now.target) {
    return "link target";
  }
  if (then.size != now.size) {
    return fmt::format("size {} → {} bytes", then.size, now.size);
  }
  if (then.inode != now.inode) {
    return "replaced";
  }
  if (!then.sha256.empty() && !now.sha256.empty() && then.sha256 != now.sha256) {
    return "content";
  }
  if (then.mtime_ns != now.mtime_ns || then.ctime_ns != now.ctime_ns) {
    return "modified";
  }
  return "";
}

} // namespace

bool is_program(const fs::path& path) {
  struct stat info {};
  if (::lstat(path.c_str(), &info) != 0 || !S_ISREG(info.st_mode)) {
    return false;
  }
  if ((info.st_mode & 0111) != 0) {
    return true;
  }
  std::array<char, 4> head{};
  std::ifstream in(path, std::ios::binary);
  in.read(head.data(), head.size());
  const std::string_view start(head.data(), static_cast<std::size_t>(in.gcount()));
  return start.starts_with("#!") || start == std::string_view("\x7f"
                                                              "ELF",
                                                              4);
}

bool matches_writable(const std::string& path, const std::vector<std::string>& globs) {
  for (const auto& glob : globs) {
    if (::fnmatch(glob.c_str(), path.c_str(), 0) == 0) {
      return true;
    }
  }
  return false;
}

TreeManifest TreeManifest::take(const fs::path& root, std::string label, const std::vector<std::string>& writable) {
  std::error_code ec;
  if (!fs::is_directory(fs::symlink_status(root, ec))) {
    throw RefusedError(root.string() + " is not a directory: its tree cannot be checked",
                       "check that the arm's worktree was made");
  }
  TreeManifest manifest;
  manifest.m_root = root;
  manifest.m_label = std::move(label);
  manifest.m_writable = writable;
  auto taken = walk(root, writable, true);
  manifest.m_entries = std::move(taken.entries);
  manifest.m_exempt = taken.exempt;
  return manifest;
}

std::vector<std::string> TreeManifest::changes(bool rehash) const {
  const auto now = walk(m_root, m_writable, rehash).entries;
  std::vector<std::string> found;
  auto then_it = m_entries.begin();
  auto now_it = now.begin();
  while (then_it != m_entries.end() || now_it != now.end()) {
    if (now_it == now.end() || (then_it != m_entries.end() && then_it->first < now_it->first)) {
      found.push_back(then_it->first + " (removed)");
      ++then_it;
    } else if (then_it == m_entries.end() || now_it->first < then_it->first) {
      found.push_back(now_it->first + " (added)");
      ++now_it;
    } else {
      if (auto what = difference(then_it->second, now_it->second); !what.empty()) {
        found.push_back(then_it->first + " (" + what + ")");
      }
      ++then_it;
      ++now_it;
    }
  }
  return found;
}

std::size_t TreeManifest::files() const {
  std::size_t n = 0;
  for (const auto& [path, facts] : m_entries) {
    n += facts.kind == 'f' ? 1 : 0;
  }
  return n;
}

std::uint64_t TreeManifest::bytes() const {
  std::uint64_t n = 0;
  for (const auto& [path, facts] : m_entries) {
    n += facts.kind == 'f' ? facts.size : 0;
  }
  return n;
}

std::string summarize_changes(const std::vector<std::string>& changes, std::size_t limit) {
  std::string text;
  for (std::size_t i = 0; i < changes.size() && i < limit; ++i) {
    text += (i == 0 ? "" : ", ") + changes[i];
  }
  if (changes.size() > limit) {
    text += fmt::format(" and {} more", changes.size() - limit);
  }
  return text;
}

} // namespace refbench::build
