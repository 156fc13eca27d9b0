#include <refbench/git/refs.hpp>

#include <refbench/process/interrupt.hpp>
#include <refbench/process/spawn.hpp>
#include <refbench/util/error.hpp>
#include <refbench/util/strings.hpp>

#include <algorithm>
#include <array>
#include <cstddef>
#include <fmt/format.h>

extern char** environ;

namespace refbench::git {

namespace {

constexpr std::size_t k_max_directory_name = 100;
constexpr std::size_t k_directory_sha_chars = 12;
constexpr std::string_view k_latest_release = "latest-release";
constexpr std::string_view k_default_branch = "default-branch";
constexpr std::string_view k_merge_base = "merge-base";

// Variables that would make `git -C repo` look at another repository (git's
// own "local_repo_env" list, minus the config ones a user may rely on).
constexpr std::array<std::string_view, 9> k_repository_variables = {
    "GIT_DIR",          "GIT_WORK_TREE",        "GIT_INDEX_FILE",
    "GIT_COMMON_DIR",   "GIT_OBJECT_DIRECTORY", "GIT_PREFIX",
    "GIT_SHALLOW_FILE", "GIT_GRAFT_FILE",       "GIT_ALTERNATE_OBJECT_DIRECTORIES",
};

// The current environment for git: repository-locating variables dropped and
// credential prompts off (stdin is /dev/null; a prompt on the tty would hang).
std::vector<std::string> git_environment() {
  std::vector<std::string> env;
  bool prompt_set = false;
  for (char** entry = environ; *entry != nullptr; ++entry) {
    std::string_view variable(*entry);
    auto name = variable.substr(0, variable.find('='));
    if (std::ranges::find(k_repository_variables, name) != k_repository_variables.end()) {
      continue;
    }
    prompt_set = prompt_set || name == "GIT_TERMINAL_PROMPT";
    env.emplace_back(variable);
  }
  if (!prompt_set) {
    env.emplace_back("GIT_TERMINAL_PROMPT=0");
  }
  return env;
}

std::string command_line(const std::vector<std::string>& args) {
  std::string line = "git";
  for (const auto& arg : args) {
    line += ' ';
    line += arg;
  }
  return line;
}

bool is_portable(char c) {
  return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '.' || c == '_' || c == '-';
}

// '/' → "--", anything else outside [A-Za-z0-9._-] → '_', one '_' per UTF-8
// code point (continuation bytes of a multi-byte sequence are dropped).
std::string portable_characters(std::string_view text) {
  std::string out;
  bool in_sequence = false;
  for (char c : text) {
    auto byte = static_cast<unsigned char>(c);
    if (in_sequence && (byte & 0xC0) == 0x80) {
      continue;
    }
    in_sequence = byte >= 0xC0;
    if (c == '/') {
      out += "--";
    } else {
      out += is_portable(c) ? c : '_';
    }
  }
  return out;
}

// No leading '.' or '-' (hidden file, option-like) and no "..".
void defuse_dots(std::string& name) {
  if (!name.empty() && (name.front() == '.' || name.front() == '-')) {
    name.front() = '_';
  }
  for (std::size_t i = 1; i < name.size(); ++i) {
    if (name[i] == '.' && name[i - 1] == '.') {
      name[i] = '_';
    }
  }
}

// ^v?[0-9]+\.[0-9]+\.[0-9]+$ split into its three numbers.
struct ReleaseVersion {
  std::array<std::string_view, 3> numbers;
  bool has_v = false;
};

std::optional<ReleaseVersion> parse_release(std::string_view tag) {
  ReleaseVersion version;
  version.has_v = tag.starts_with('v');
  std::string_view rest = tag.substr(version.has_v ? 1 : 0);
  for (std::size_t i = 0; i < 3; ++i) {
    auto digits = std::min(rest.find_first_not_of("0123456789"), rest.size());
    if (digits == 0) {
      return std::nullopt;
    }
    version.numbers[i] = rest.substr(0, digits);
    rest.remove_prefix(digits);
    if (i < 2) {
      if (!rest.starts_with('.')) {
        return std::nullopt;
      }
      rest.remove_prefix(1);
    }
  }
  return rest.empty() ? std::optional(version) : std::nullopt;
}

// Compares two digit strings as numbers of any length: <0, 0, >0.
int compare_numbers(std::string_view a, std::string_view b) {
  a = util::trim_left(a, "0");
  b = util::trim_left(b, "0");
  if (a.size() != b.size()) {
    return a.size() < b.size() ? -1 : 1;
  }
  return a.compare(b);
}

// True when release tag `a` should be preferred over `b`: newer version; of
// equal versions the one with 'v', then the shorter, then the smaller string.
bool preferred(std::string_view a, const ReleaseVersion& va, std::string_view b, const ReleaseVersion& vb) {
  for (std::size_t i = 0; i < 3; ++i) {
    if (int order = compare_numbers(va.numbers[i], vb.numbers[i]); order != 0) {
      return order > 0;
    }
  }
  if (va.has_v != vb.has_v) {
    return va.has_v;
  }
  if (a.size() != b.size()) {
    return a.size() < b.size();
  }
  return a < b;
}

// The commit `spec` names, or nullopt when it names none (other git failures throw).
std::optional<std::string> commit_of(const std::string& repo, const std::string& spec) {
  try {
    return run_git(repo, {"rev-parse", "--verify", "--quiet", "--end-of-options", spec + "^{commit}"});
  } catch (const GitError& error) {
    if (error.exit_code() == 1) {
      return std::nullopt;
    }
    throw;
  }
}

// The full ref origin/HEAD points to, e.g. "refs/remotes/origin/main", if set.
std::optional<std::string> remote_head(const std::string& repo) {
  try {
    auto ref = run_git(repo, {"symbolic-ref", "-q", "refs/remotes/origin/HEAD"});
    return ref.empty() ? std::nullopt : std::optional(ref);
  } catch (const GitError&) {
    return std::nullopt;
  }
}

// "refs/heads/main" → "main", "refs/remotes/origin/main" → "origin/main".
std::string short_name(std::string_view full_ref) {
  for (std::string_view prefix : {"refs/heads/", "refs/remotes/"}) {
    if (full_ref.starts_with(prefix)) {
      return std::string(full_ref.substr(prefix.size()));
    }
  }
  return std::string(full_ref);
}

// The default branch's short name (e.g. "origin/main") and commit.
struct Branch {
  std::string name;
  std::string sha;
};

// The default branch of `repo`: what origin/HEAD points to, else the first
// of main, master, origin/main, origin/master that exists. Throws
// RefusedError when there is none.
Branch find_default_branch(const std::string& repo) {
  if (auto head = remote_head(repo)) {
    if (auto sha = commit_of(repo, *head)) {
      return {short_name(*head), *sha};
    }
  }
  for (std::string full :
       {"refs/heads/main", "refs/heads/master", "refs/remotes/origin/main", "refs/remotes/origin/master"}) {
    if (auto sha = commit_of(repo, full)) {
      return {short_name(full), *sha};
    }
  }
  throw RefusedError("no default branch: " + repo + " has no origin/HEAD and no main or master branch",
                     "name the ref explicitly");
}

void refuse_malformed(const std::string& ref) {
  if (ref.empty()) {
    throw RefusedError("empty ref",
                       "name a branch, tag or commit, or one of latest-release, default-branch, merge-base");
  }
  if (ref.size() > k_max_ref_bytes) {
    throw RefusedError(fmt::format("a ref of {} bytes (starting '{}…'): no ref is that long", ref.size(),
                                   util::printable(ref.substr(0, 40))),
                       "name a branch, tag or commit");
  }
  if (ref.front() == '-') {
    throw RefusedError("ref '" + ref + "' starts with '-'",
                       "refbench passes no options to git; name a branch, tag or commit");
  }
}

ResolvedRef resolve_latest_release(const std::string& repo) {
  auto tags = run_git(repo, {"tag", "--list"});
  std::vector<std::string> names;
  for (std::size_t begin = 0; begin < tags.size();) {
    auto end = std::min(tags.find('\n', begin), tags.size());
    names.emplace_back(tags.substr(begin, end - begin));
    begin = end + 1;
  }
  auto tag = latest_release(names);
  if (!tag) {
    throw RefusedError("latest-release: the repository has no release tags (vX.Y.Z)",
                       "fetch them (git fetch --tags), or name the baseline ref explicitly");
  }
  auto sha = commit_of(repo, "refs/tags/" + *tag);
  if (!sha) {
    throw RefusedError("latest-release: tag '" + *tag + "' does not point to a commit",
                       "name the baseline ref explicitly");
  }
  return {std::string(k_latest_release), *sha, directory_name(*tag, *sha), *tag};
}

ResolvedRef resolve_default_branch(const std::string& repo) {
  auto branch = find_default_branch(repo);
  return {std::string(k_default_branch), branch.sha, directory_name(branch.name, branch.sha), branch.name};
}

// The merge base of the commits `a` and `b` (the one called `b_name`),
// named "merge-base".
ResolvedRef merge_base_of(const std::string& repo, const std::string& a, const std::string& b,
                          const std::string& b_name) {
  std::string sha;
  try {
    sha = run_git(repo, {"merge-base", a, b});
  } catch (const GitError& error) {
    if (error.exit_code() != 1) {
      throw;
    }
    throw RefusedError("merge-base: the candidate and " + b_name + " have no common ancestor",
                       "name the baseline ref explicitly");
  }
  return {std::string(k_merge_base), sha, directory_name(k_merge_base, sha), std::string(k_merge_base)};
}

ResolvedRef resolve_merge_base(const std::string& repo, const std::optional<std::string>& candidate) {
  if (!candidate || candidate->empty() || candidate->front() == '-') {
    throw RefusedError("merge-base needs the candidate's commit",
                       "use merge-base as the baseline and name the candidate ref");
  }
  auto candidate_sha = commit_of(repo, *candidate);
  if (!candidate_sha) {
    throw RefusedError("merge-base: candidate '" + *candidate + "' does not resolve to a commit in " + repo,
                       "check the candidate ref");
  }
  auto branch = find_default_branch(repo);
  return merge_base_of(repo, *candidate_sha, branch.sha, branch.name);
}

ResolvedRef resolve_commitish(const std::string& repo, const std::string& ref) {
  auto sha = commit_of(repo, ref);
  if (!sha) {
    throw RefusedError("ref '" + ref + "' does not resolve to a commit in " + repo,
                       "check the name, or fetch it (git fetch --tags)");
  }
  return {ref, *sha, directory_name(ref, *sha), ref};
}

} // namespace

std::string run_git(const std::string& repo, const std::vector<std::string>& args, int cancel_fd) {
  model::Invocation invocation;
  invocation.argv = {"git", "-C", repo};
  invocation.argv.insert(invocation.argv.end(), args.begin(), args.end());
  invocation.env = git_environment();
  invocation.capture_stdout = true;
  auto outcome = process::run_process(invocation, cancel_fd);
  if (!model::succeeded(outcome)) {
    // git dies of the same SIGTERM to the process group: that is the interrupt, not git's failure
    process::throw_if_interrupted();
    std::string what = "`" + command_line(args) + "` in " + repo + " " + model::describe(outcome, {});
    if (auto last = model::last_lines(outcome.stderr_tail, 1); !last.empty()) {
      what += ": " + last;
    }
    int exit_code = outcome.termination == model::Termination::exited ? outcome.exit_code : -1;
    throw GitError(what, exit_code, std::move(outcome.stderr_tail));
  }
  auto& text = outcome.stdout_text;
  while (!text.empty() && text.back() == '\n') {
    text.pop_back();
  }
  return std::move(text);
}

std::string directory_name(std::string_view ref, std::string_view sha) {
  std::string name = ref.empty() ? std::string("ref") : portable_characters(ref);
  defuse_dots(name);
  std::string suffix = "-" + portable_characters(sha.substr(0, k_directory_sha_chars));
  name.resize(std::min(name.size(), k_max_directory_name - suffix.size()));
  return name + suffix;
}

std::optional<std::string> latest_release(const std::vector<std::string>& tags) {
  std::optional<std::string> best;
  ReleaseVersion best_version;
  for (const auto& tag : tags) {
    auto version = parse_release(tag);
    if (version && (!best || preferred(tag, *version, *best, best_version))) {
      best = tag;
      best_version = *version;
    }
  }
  return best;
}

ResolvedRef resolve(const std::string& repo, const std::string& ref,
                    const std::optional<std::string>& merge_base_with) {
  refuse_malformed(ref);
  try {
    if (ref == k_latest_release) {
      return resolve_latest_release(repo);
    }
    if (ref == k_default_branch) {
      return resolve_default_branch(repo);
    }
    if (ref == k_merge_base) {
      return resolve_merge_base(repo, merge_base_with);
    }
    return resolve_commitish(repo, ref);
  } catch (const GitError& error) {
    throw RefusedError("cannot resolve '" + ref + "': " + error.what(),
                       "check that " + repo + " is a git repository and that git works there");
  }
}

ResolvedRef resolve_pull_request_base(const std::string& repo, const std::string& base, const std::string& head) {
  for (const auto& [what, sha] : {std::pair{"base", base}, std::pair{"head", head}}) {
    refuse_malformed(sha);
    const bool hex = (sha.size() == 40 || sha.size() == 64) &&
                     std::ranges::all_of(sha, [](char c) { return std::isxdigit(static_cast<unsigned char>(c)); });
    if (!hex) {
      throw RefusedError(fmt::format("the pull request's {} '{}' is not a commit SHA (40 or 64 hex digits)", what,
                                     util::printable(sha.substr(0, 64))),
                         "pass the SHAs GitHub gives the pull request");
    }
    if (!commit_of(repo, sha)) {
      throw RefusedError(fmt::format("the pull request's {} commit {} is not in {}", what, sha, repo),
                         "check out with full history (actions/checkout with fetch-depth: 0), and for a fork's PR "
                         "fetch it: git fetch origin pull/N/head");
    }
  }
  try {
    return merge_base_of(repo, base, head, "the pull request's base");
  } catch (const GitError& error) {
    throw RefusedError(std::string("cannot find the pull request's merge base: ") + error.what(),
                       "check out with full history (actions/checkout with fetch-depth: 0)");
  }
}

bool is_repository(const std::string& dir) {
  try {
    run_git(dir, {"rev-parse", "--git-dir"});
    return true;
  } catch (const GitError&) {
    return false;
  }
}

} // namespace refbench::git
