#include <refbench/github/actions.hpp>
#include <refbench/github/api.hpp>
#include <refbench/github/comment.hpp>
#include <refbench/github/http.hpp>
#include <refbench/pipeline/github_run.hpp>
#include <refbench/pipeline/outputs.hpp>
#include <refbench/report/verdict_table.hpp>
#include <refbench/util/error.hpp>
#include <refbench/util/files.hpp>
#include <refbench/util/json_input.hpp>
#include <refbench/util/rng.hpp>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fmt/format.h>
#include <iostream>

namespace refbench::pipeline {
namespace {

namespace fs = std::filesystem;

std::string required_variable(const char* name) {
  const char* value = std::getenv(name);
  if (value == nullptr || *value == '\0') {
    throw UsageError(fmt::format("--github needs {}, which GitHub Actions sets", name),
                     "run --github inside a GitHub Actions job, or name the refs with --baseline/--candidate");
  }
  return value;
}

// GET /repos/O/R/pulls/N: the PR an issue_comment was made on.
nlohmann::json fetch_pull_request(std::uint64_t number) {
  auto settings = github::settings_from_environment(std::getenv, 120);
  const std::string repo = github::repository_from(std::nullopt, std::getenv);
  github::CurlTransport transport(github::find_ca(std::nullopt));
  github::Api api(std::move(settings), transport);
  auto pull = util::parse_json(api.request("GET", fmt::format("/repos/{}/pulls/{}", repo, number)).body,
                               github::k_max_answer_bytes);
  if (!pull || !pull->is_object()) {
    throw UsageError(fmt::format("GitHub API GET /repos/{}/pulls/{}: the answer is not a pull request{}", repo, number,
                                 pull ? "" : " (" + pull.error() + ")"),
                     "check GITHUB_API_URL");
  }
  return std::move(*pull);
}

std::size_t file_size_or_zero(const std::string& path) {
  std::error_code ec;
  auto size = fs::file_size(path, ec);
  return ec ? 0 : static_cast<std::size_t>(size);
}

} // namespace

github::EventPlan github_event_plan(const EventOptions& options) {
  const std::string name = required_variable("GITHUB_EVENT_NAME");
  github::refuse_pull_request_target(name, options.allow_pull_request_target);
  const std::string path = required_variable("GITHUB_EVENT_PATH");
  const char* sha = std::getenv("GITHUB_SHA");
  auto plan = github::plan_for_event(name, read_input_file(path, k_max_event_bytes), path, sha ? sha : "");
  if (plan.needs_pull_request && !options.refs_named) {
    if (const char* token = std::getenv("GITHUB_TOKEN"); token == nullptr || *token == '\0') {
      throw UsageError("/refbench without refs needs the pull request's commits, and this step has no GITHUB_TOKEN",
                       "pin them when the command is accepted and pass --baseline and --candidate (the Action's "
                       "baseline-ref, candidate-ref), as examples/workflows/refbench-command.yml does");
    }
    github::apply_pull_request(plan, fetch_pull_request(*plan.pr), fmt::format("pull request {}", *plan.pr));
  }
  plan.needs_pull_request = false;
  return plan;
}

void publish_bisect_to_github(const fs::path& out, const std::string& culprit) {
  const std::string report = read_input_file((out / "report.md").string());
  if (const char* summary = std::getenv("GITHUB_STEP_SUMMARY"); summary && *summary) {
    github::append_to_file(summary, github::summary_text(report, file_size_or_zero(summary)));
  }
  if (const char* output = std::getenv("GITHUB_OUTPUT"); output && *output) {
    const std::string delimiter = fmt::format("refbench_{:016x}", util::random_seed());
    github::append_to_file(output, github::output_entry("culprit", culprit, delimiter) +
                                       github::output_entry("bisect", (out / "bisect.json").string(), delimiter));
  }
}

void publish_to_github(const fs::path& out, const report::RunDocument& document, const github::EventPlan& plan) {
  const std::string report_path = (out / "report.md").string();
  const std::string report = read_input_file(report_path);
  if (const char* summary = std::getenv("GITHUB_STEP_SUMMARY"); summary && *summary) {
    github::append_to_file(summary, github::summary_text(report, file_size_or_zero(summary)));
  }
  if (const char* output = std::getenv("GITHUB_OUTPUT"); output && *output) {
    const auto regressions = std::count_if(document.results.begin(), document.results.end(), [](const auto& r) {
      return r.gated && !r.control && r.verdict == stats::Verdict::regression;
    });
    const std::string delimiter = fmt::format("refbench_{:016x}", util::random_seed());
    github::append_to_file(
        output, github::output_entry("verdict", std::string(analysis::run_verdict_name(document.verdict)), delimiter) +
                    github::output_entry("regressions", std::to_string(regressions), delimiter) +
                    github::output_entry("report", report_path, delimiter) +
                    github::output_entry("results", (out / "results.json").string(), delimiter) +
                    github::output_entry("baseline-sha", document.header.baseline ? document.header.baseline->sha : "",
                                         delimiter) +
                    github::output_entry("candidate-sha",
                                         document.header.candidate ? document.header.candidate->sha : "", delimiter));
  }
  std::vector<github::Regression> regressions;
  for (const auto& r : document.results) {
    if (r.gated && !r.control && r.verdict == stats::Verdict::regression) {
      regressions.push_back({model::cell_title(r.cell, r.candidate), r.metric, r.ratio, r.ci_low, r.ci_high,
                             r.threshold, report::regression_reason(r)});
    }
  }
  for (const auto& line : github::regression_annotations(std::move(regressions))) {
    std::cout << line << "\n";
  }
  if (plan.pr) {
    const std::string body = github::trim_body(github::with_marker(report, github::marker_line("")));
    if (!util::write_file_atomically(out / "comment.json", github::comment_artifact_json({*plan.pr, body}))) {
      throw MeasurementError(fmt::format("cannot write {}: {}", (out / "comment.json").string(), std::strerror(errno)),
                             "check the --out directory; results.json and report.md are written");
    }
  }
}

} // namespace refbench::pipeline
