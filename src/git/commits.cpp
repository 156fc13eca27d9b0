#include <refbench/git/commits.hpp>
#include <refbench/git/refs.hpp>
#include <refbench/util/error.hpp>
#include <refbench/util/strings.hpp>

#include <fmt/format.h>

namespace refbench::git {

CommitInfo commit_info(const std::string& repo, const std::string& sha) {
  const auto text =
      run_git(repo, {"show", "-s", "--no-show-signature", "--format=%H%x00%s%x00%an <%ae>%x00%aI%x00%P", sha});
  const auto fields = util::split(text, '\0');
  if (fields.size() < 5) {
    throw GitError("git show " + sha + " did not describe the commit", 0, "");
  }
  CommitInfo info{std::string(fields[0]), std::string(fields[1]), std::string(fields[2]), std::string(fields[3]), {}};
  for (const auto& parent : util::split(fields[4], ' ')) {
    if (!parent.empty()) {
      info.parents.emplace_back(parent);
    }
  }
  return info;
}

std::string merge_base(const std::string& repo, const std::string& a, const std::string& b) {
  try {
    return run_git(repo, {"merge-base", a, b});
  } catch (const GitError&) { // no common ancestor: git exits 1 and prints nothing
    return {};
  }
}

bool is_ancestor(const std::string& repo, const std::string& ancestor, const std::string& descendant) {
  return merge_base(repo, ancestor, descendant) == run_git(repo, {"rev-parse", "--verify", ancestor + "^{commit}"});
}

std::size_t first_parent_count(const std::string& repo, const std::string& from, const std::string& to) {
  return std::stoull(run_git(repo, {"rev-list", "--count", "--first-parent", from + ".." + to}));
}

std::vector<std::string> first_parent_path(const std::string& repo, const std::string& from, const std::string& to) {
  const std::string start = run_git(repo, {"rev-parse", "--verify", from + "^{commit}"});
  std::vector<std::string> path{start};
  const auto listed = run_git(repo, {"rev-list", "--first-parent", "--reverse", start + ".." + to});
  for (const auto& sha : util::split(listed, '\n')) {
    if (!sha.empty()) {
      path.emplace_back(sha);
    }
  }
  if (path.size() >= 2 && commit_info(repo, path[1]).parents.front() != start) {
    throw RefusedError(
        fmt::format("{} is not on the first-parent line of {}: it was merged in from a side branch", from, to),
        "pass a commit of that line as --good (git log --first-parent)");
  }
  return path;
}

} // namespace refbench::git
