#pragma once
// The refs of `refbench run` (docs/manual/commands.md#refbench-run, docs/manual/commands.md#more-candidates,
// docs/manual/history.md): what the flags, the GitHub event and the history name, resolved to commits, and how the arms
// are recorded and announced.

#include <refbench/build/build.hpp>
#include <refbench/config/config.hpp>
#include <refbench/git/refs.hpp>
#include <refbench/github/event.hpp>
#include <refbench/pipeline/options.hpp>
#include <refbench/pipeline/run_arms.hpp>
#include <refbench/report/run_document.hpp>

#include <filesystem>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace refbench::pipeline {

// The refs the flags leave open, taken from the GitHub event (--github;
// flags win). A pull request's baseline is the merge base with its base.
struct EventRefs {
  RunOptions options;
  std::optional<github::EventPlan> event;
  std::optional<std::string> pr_base_sha;
};
EventRefs refs_from_event(const RunOptions& options);

// docs/manual/history.md: --history DIR, else [history] dir, absolute; none without either.
std::optional<std::filesystem::path> history_dir_of(const RunOptions& o, const config::Config& config);

// A `[history] dir` from the config (the commit's own words) is appended to
// only inside the repository's checkout `repo` or `--out`; anywhere else
// takes an explicit --history (UsageError otherwise). A pull request's run
// only reads the history, so it may read it anywhere.
void check_history_place(const RunOptions& o, const config::Config& config, const std::string& repo, bool pull_request);

// The refs: the baseline and at least one candidate must be named (else
// RefusedError), at most k_max_candidates, none twice (UsageError); the
// candidates first, since `merge-base` as the baseline is relative to the
// first. A pull request's baseline is the merge base of `pr_base_sha` and
// the candidate. `history-last` is read from `history`. The baseline equal
// to a candidate is refused unless --allow-same-commit.
std::pair<git::ResolvedRef, std::vector<git::ResolvedRef>>
resolve_refs(const RunOptions& o, const std::string& repo, const std::optional<std::string>& pr_base_sha,
             const std::optional<std::filesystem::path>& history);

// The arms as results.json records them into `header`: the ref as typed,
// what it named, its commit, worktree, build time and [arms.NAME]
// settings; the candidates in the order named (`candidates` only when
// there are several).
void record_arms(report::RunHeader& header, const Arms& arms, const git::ResolvedRef& baseline,
                 const std::vector<git::ResolvedRef>& candidates, const RunOptions& o, const config::Config& config,
                 const build::BuildTimes& build_times);

// "refbench: baseline main (1a2b3c4), candidate feat (5d6e7f8)[, candidate …]\n"
std::string arms_line(const RunOptions& o, const git::ResolvedRef& baseline,
                      const std::vector<git::ResolvedRef>& candidates);

} // namespace refbench::pipeline
