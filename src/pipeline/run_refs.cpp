#include <refbench/pipeline/github_run.hpp>
#include <refbench/pipeline/history.hpp>
#include <refbench/pipeline/run_refs.hpp>
#include <refbench/util/error.hpp>
#include <refbench/util/strings.hpp>

#include <algorithm>
#include <fmt/format.h>

namespace refbench::pipeline {

namespace fs = std::filesystem;

namespace {

// `ref` resolved, `history-last` through the history in `history`.
git::ResolvedRef resolve_ref(const std::string& repo, const std::string& ref, const std::optional<fs::path>& history,
                             const std::optional<std::string>& merge_base_with = std::nullopt) {
  if (ref != "history-last") {
    return git::resolve(repo, ref, merge_base_with);
  }
  auto resolved = git::resolve(repo, history_last(history, repo));
  resolved.ref = ref;
  resolved.name = resolved.sha.substr(0, 12);
  return resolved;
}

} // namespace

// The refs: the baseline and at least one candidate must be named; the
// candidates first, since `merge-base` as the baseline is relative to the
// first. A pull request's baseline is the merge base of `pr_base_sha` and
// the candidate. `history-last` is read from `history`.
std::pair<git::ResolvedRef, std::vector<git::ResolvedRef>> resolve_refs(const RunOptions& o, const std::string& repo,
                                                                        const std::optional<std::string>& pr_base_sha,
                                                                        const std::optional<fs::path>& history) {
  if (!o.baseline || o.candidates.empty()) {
    throw RefusedError(fmt::format("only one arm named: {} is missing", o.baseline ? "--candidate" : "--baseline"),
                       "name both refs, e.g. --baseline latest-release --candidate HEAD");
  }
  if (o.candidates.size() > k_max_candidates) {
    throw UsageError(fmt::format("{} candidates named; one run compares at most {} with its baseline",
                                 o.candidates.size(), k_max_candidates),
                     "split the candidates over several runs");
  }
  for (std::size_t i = 0; i < o.candidates.size(); ++i) {
    if (std::find(o.candidates.begin(), o.candidates.begin() + static_cast<std::ptrdiff_t>(i), o.candidates[i]) !=
        o.candidates.begin() + static_cast<std::ptrdiff_t>(i)) {
      throw UsageError(fmt::format("--candidate {} is named twice", util::printable(o.candidates[i])),
                       "name each candidate once");
    }
  }
  std::optional<git::ResolvedRef> pr_baseline; // checks first that both PR commits were fetched
  if (pr_base_sha) {
    pr_baseline = git::resolve_pull_request_base(repo, *pr_base_sha, o.candidates.front());
  }
  std::vector<git::ResolvedRef> candidates;
  for (const auto& ref : o.candidates) {
    candidates.push_back(resolve_ref(repo, ref, history));
  }
  auto baseline = pr_baseline ? *pr_baseline : resolve_ref(repo, *o.baseline, history, candidates.front().sha);
  for (std::size_t i = 0; i < candidates.size() && !o.allow_same_commit; ++i) {
    if (baseline.sha == candidates[i].sha) {
      throw RefusedError(fmt::format("--baseline {} and --candidate {} are the same commit {}", *o.baseline,
                                     o.candidates[i], baseline.sha.substr(0, 12)),
                         "pick two different refs, or pass --allow-same-commit for an A/A run");
    }
  }
  return {baseline, candidates};
}

// The arms as results.json records them: the ref as typed, what it named,
// its commit, worktree, build time and [arms.NAME] settings; the
// candidates in the order named.
void record_arms(report::RunHeader& header, const Arms& arms, const git::ResolvedRef& baseline,
                 const std::vector<git::ResolvedRef>& candidates, const RunOptions& o, const config::Config& config,
                 const build::BuildTimes& build_times) {
  auto arm = [&](const git::ResolvedRef& ref, const std::string& typed, const std::string& tree, double seconds,
                 const config::ArmSettings& settings) {
    return report::ArmInfo{typed, ref.name, ref.sha, tree, "", seconds, settings.env, settings.args};
  };
  header.baseline =
      arm(baseline, *o.baseline, arms.tree(model::Arm::baseline), build_times.seconds[0], config.baseline_arm);
  header.candidates.clear();
  for (std::size_t k = 0; k < candidates.size(); ++k) {
    header.candidates.push_back(arm(candidates[k], o.candidates[k], arms.candidate_tree(k),
                                    build_times.seconds.at(k + 1), config.candidate_arm));
  }
  header.candidate = header.candidates.front();
  if (candidates.size() == 1) {
    header.candidates.clear();
  }
}

EventRefs refs_from_event(const RunOptions& options) {
  EventRefs refs{options, std::nullopt, std::nullopt};
  RunOptions& o = refs.options;
  if (!o.github) {
    return refs;
  }
  refs.event = github_event_plan({o.baseline && !o.candidates.empty(), o.allow_pull_request_target});
  if (!o.baseline && refs.event->pr_base_sha) {
    refs.pr_base_sha = refs.event->pr_base_sha;
    o.baseline = "merge-base";
  }
  o.baseline = o.baseline ? o.baseline : refs.event->baseline;
  if (o.candidates.empty() && refs.event->candidate) {
    o.candidates = {*refs.event->candidate};
  }
  return refs;
}

// "refbench: baseline main (1a2b3c4), candidate feat (5d6e7f8)[, candidate …]"
std::string arms_line(const RunOptions& o, const git::ResolvedRef& baseline,
                      const std::vector<git::ResolvedRef>& candidates) {
  std::string line = fmt::format("refbench: baseline {} ({})", *o.baseline, baseline.sha.substr(0, 7));
  for (std::size_t k = 0; k < candidates.size(); ++k) {
    line += fmt::format(", candidate {} ({})", o.candidates[k], candidates[k].sha.substr(0, 7));
  }
  return line + "\n";
}

namespace {

// Whether `path` is `root` or lies under it, after resolving what exists of both.
bool lies_under(const fs::path& path, const fs::path& root) {
  std::error_code ec;
  const auto p = fs::weakly_canonical(path, ec);
  const auto r = fs::weakly_canonical(root, ec);
  const auto relative = p.lexically_relative(r);
  return !relative.empty() && *relative.begin() != "..";
}

} // namespace

// docs/manual/history.md: --history DIR, else [history] dir, absolute; none without either.
std::optional<fs::path> history_dir_of(const RunOptions& o, const config::Config& config) {
  if (o.history) {
    return fs::absolute(*o.history);
  }
  return config.history_dir ? std::optional<fs::path>(fs::absolute(*config.history_dir)) : std::nullopt;
}

void check_history_place(const RunOptions& o, const config::Config& config, const std::string& repo,
                         bool pull_request) {
  if (o.history || pull_request || !config.history_dir) {
    return;
  }
  const auto dir = fs::absolute(*config.history_dir);
  if (!lies_under(dir, repo) && !lies_under(dir, fs::absolute(o.out))) {
    throw UsageError(
        fmt::format("[history] dir = \"{}\" in {} is outside the repository's checkout and --out, and "
                    "this run would append to it",
                    *config.history_dir, config.run.source),
        fmt::format("pass --history {} to append there, or name a directory inside the checkout", dir.string()));
  }
}

} // namespace refbench::pipeline
