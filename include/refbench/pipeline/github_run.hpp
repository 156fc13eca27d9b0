#pragma once
// `refbench run --github` (docs/manual/github-actions.md): the refs the GitHub Actions event asks
// for, and a finished run handed back to the job (summary, outputs,
// annotations, comment.json for the fork-safe commenter).

#include <refbench/github/event.hpp>
#include <refbench/report/run_document.hpp>

#include <filesystem>
#include <nlohmann/json.hpp>

namespace refbench::pipeline {

// What `run` tells github_event_plan: whether its flags name both refs (then
// an issue_comment's PR is not looked up: the refs were pinned when the
// command was accepted) and whether pull_request_target is allowed.
struct EventOptions {
  bool refs_named = false;
  bool allow_pull_request_target = false;
};

// The refs of the event in GITHUB_EVENT_NAME / GITHUB_EVENT_PATH; for an
// issue_comment without refs the PR's refs come from the API (GITHUB_TOKEN,
// GITHUB_API_URL, GITHUB_REPOSITORY). Throws UsageError when the variables
// are missing or the payload is malformed, RefusedError for an event or
// comment refbench does not act on (pull_request_target unless allowed).
github::EventPlan github_event_plan(const EventOptions& options);

// Hands the run in `out` (its `document`, report.md already
// written) to the job: appends report.md to $GITHUB_STEP_SUMMARY (under
// 1 MiB), writes verdict, regressions, report, results, baseline-sha and
// candidate-sha (the SHAs measured; a bisect's range) to $GITHUB_OUTPUT, prints up to 10 `::error` annotations, and for
// a PR writes `out`/comment.json. Variables that are not set are skipped. Hands a bisect's report.md (in `out`) to the
// job summary and its culprit's SHA (empty when none was named) and bisect.json's path to $GITHUB_OUTPUT as `culprit`
// and `bisect`. Variables that are not set are skipped.
void publish_bisect_to_github(const std::filesystem::path& out, const std::string& culprit);

void publish_to_github(const std::filesystem::path& out, const report::RunDocument& document,
                       const github::EventPlan& plan);

} // namespace refbench::pipeline
