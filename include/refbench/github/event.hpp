#pragma once
// The refs a GitHub Actions event asks for (docs/manual/github-actions.md `--github`): pure
// parsing of the event payload, no git and no network.

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

namespace refbench::github {

// What an event asks refbench to compare.
struct EventPlan {
  std::string event; // GITHUB_EVENT_NAME
  // refs or keywords; for a pull request the baseline is the merge base of
  // `pr_base_sha` and the candidate, and `baseline` stays empty
  std::optional<std::string> baseline;
  std::optional<std::string> candidate;
  std::optional<std::string> pr_base_sha;
  std::optional<std::uint64_t> pr; // the PR to comment on
  // what the report calls the arms of a PR: its base and head branch names
  std::optional<std::string> baseline_name;
  std::optional<std::string> candidate_name;
  // an issue_comment names only the PR: its refs come from GET /pulls/N
  bool needs_pull_request = false;
};

// Reads the event `name` with the payload `payload` (the JSON text of
// GITHUB_EVENT_PATH, named `path` in messages); `sha` is GITHUB_SHA.
// pull_request / pull_request_target: merge base of base and head vs head;
// workflow_dispatch: inputs `baseline-ref` / `candidate-ref` (missing ones:
// latest-release / `sha`); schedule: latest-release vs default-branch;
// issue_comment: a body starting with `/refbench [BASE CAND]` on a PR by an
// owner, member or collaborator. Throws UsageError for a malformed payload
// and RefusedError for an event refbench does not act on.
EventPlan plan_for_event(const std::string& name, const std::string& payload, const std::string& path,
                         const std::string& sha);

// Throws RefusedError (exit 3) for `event` pull_request_target unless
// `allowed`: such a job builds the PR's code with a write token in reach.
void refuse_pull_request_target(const std::string& event, bool allowed);

// Fills the refs of `plan` from a pull request object (the event's
// `pull_request` or the answer of GET /repos/O/R/pulls/N) named `source` in
// messages; explicit `/refbench BASE CAND` refs are kept. Throws UsageError
// when base.sha or head.sha is missing.
void apply_pull_request(EventPlan& plan, const nlohmann::json& pull_request, const std::string& source);

} // namespace refbench::github
