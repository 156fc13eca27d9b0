#pragma once
// The commits between two refs, for `refbench bisect` (docs/manual/bisect.md): the
// first-parent path, ancestry and merge bases, and what a commit says about
// itself.

#include <cstddef>
#include <string>
#include <vector>

namespace refbench::git {

// A commit as refbench prints it: the first 7 hex digits of its SHA.
inline std::string short_sha(const std::string& sha) { return sha.substr(0, 7); }

// What `git show -s` says about a commit.
struct CommitInfo {
  std::string sha;
  std::string subject;
  std::string author; // "Name <email>"
  std::string date;   // the author date, ISO 8601
  std::vector<std::string> parents;
};

// The commit `sha` of `repo`. Throws GitError when git fails.
CommitInfo commit_info(const std::string& repo, const std::string& sha);

// True when `ancestor` is `descendant` or one of its ancestors.
bool is_ancestor(const std::string& repo, const std::string& ancestor, const std::string& descendant);

// The best common ancestor of `a` and `b`; empty when they have none.
std::string merge_base(const std::string& repo, const std::string& a, const std::string& b);

// How many commits the first-parent path from `from` (excluded) to `to`
// (included) has.
std::size_t first_parent_count(const std::string& repo, const std::string& from, const std::string& to);

// The first-parent path from `from` to `to`, both included, oldest first:
// `from`, then every commit after it on `to`'s first-parent line. Throws
// RefusedError when `from` is not on that line (a merged-in commit: its
// first-parent descendants do not lead to `to`).
std::vector<std::string> first_parent_path(const std::string& repo, const std::string& from, const std::string& to);

} // namespace refbench::git
