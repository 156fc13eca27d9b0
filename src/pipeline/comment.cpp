#include <refbench/formats/results_json.hpp>
#include <refbench/github/api.hpp>
#include <refbench/github/comment.hpp>
#include <refbench/github/http.hpp>
#include <refbench/pipeline/comment.hpp>
#include <refbench/pipeline/outputs.hpp>
#include <refbench/report/markdown.hpp>
#include <refbench/util/error.hpp>
#include <refbench/util/json_input.hpp>
#include <refbench/util/strings.hpp>

#include <cstdlib>
#include <filesystem>
#include <fmt/format.h>
#include <iostream>

namespace refbench::pipeline {
namespace {

namespace fs = std::filesystem;

// The report in `path`: a results.json is rendered, anything else is taken
// as Markdown.
std::string report_body(const std::string& path) {
  std::string text = read_input_file(path);
  if (path.ends_with(".json")) {
    auto document = util::parse_json(text);
    if (!document || !document->is_object()) {
      throw UsageError(path + " is not a results.json", "pass report.md or results.json of a refbench run");
    }
    return report::render_markdown(formats::document_from_json(*document, path));
  }
  return text;
}

github::CommentArtifact read_artifact(const std::string& dir) {
  const fs::path path = fs::path(dir) / "comment.json";
  std::error_code ec;
  const auto size = fs::file_size(path, ec);
  if (ec) {
    throw UsageError(fmt::format("cannot read {}: {}", path.string(), ec.message()),
                     "download the artifact that `refbench run --github` wrote into DIR");
  }
  if (size > github::k_artifact_limit) {
    throw UsageError(
        fmt::format("{} is {} bytes, more than the {} a report can be", path.string(), size, github::k_artifact_limit),
        "comment.json must be the file `refbench run --github` wrote");
  }
  return github::parse_comment_artifact(read_input_file(path.string()), path.string());
}

// The event payload at `path` (GITHUB_EVENT_PATH), through the bounded
// reader and parser; throws UsageError naming it when it is not JSON.
nlohmann::json read_event(const std::string& path) {
  auto event = util::parse_json(read_input_file(path, k_max_event_bytes), k_max_event_bytes);
  if (!event) {
    throw UsageError(fmt::format("{}: the event payload is not JSON: {}", path, event.error()),
                     "GITHUB_EVENT_PATH must be the event payload GitHub Actions wrote");
  }
  return std::move(*event);
}

// In a workflow_run job, refuses an artifact naming a PR whose head is not
// the commit the triggering run benchmarked.
void check_workflow_run(github::Api& api, const std::string& repo, std::uint64_t pr) {
  const char* name = std::getenv("GITHUB_EVENT_NAME");
  const char* path = std::getenv("GITHUB_EVENT_PATH");
  if (name == nullptr || std::string(name) != "workflow_run" || path == nullptr) {
    return;
  }
  const auto event = read_event(path);
  const auto* run = util::json_member(event, "workflow_run");
  const auto* run_head = run ? util::json_member(*run, "head_sha") : nullptr;
  if (!run_head || !run_head->is_string()) {
    throw UsageError(std::string(path) + ": workflow_run event without workflow_run.head_sha",
                     "GITHUB_EVENT_PATH must be the event payload GitHub Actions wrote");
  }
  const std::string run_sha = util::printable(run_head->get<std::string>());
  const auto pull = util::parse_json(api.request("GET", fmt::format("/repos/{}/pulls/{}", repo, pr)).body,
                                     github::k_max_answer_bytes);
  const auto* head = pull ? util::json_member(*pull, "head") : nullptr;
  const auto* head_sha = head ? util::json_member(*head, "sha") : nullptr;
  const std::string pr_sha =
      head_sha && head_sha->is_string() ? util::printable(head_sha->get<std::string>()) : std::string();
  if (pr_sha != run_sha) {
    throw UsageError(fmt::format("comment.json names PR {} whose head is {}, but the workflow run was for {}", pr,
                                 pr_sha.empty() ? "unknown" : pr_sha.substr(0, 12), run_sha.substr(0, 12)),
                     "the artifact does not belong to this pull request's run; nothing was posted");
  }
}

// In an issue_comment job (the `/refbench` commenter), refuses an artifact
// naming another PR than the one the command was made on.
void check_issue_comment(std::uint64_t pr) {
  const char* name = std::getenv("GITHUB_EVENT_NAME");
  const char* path = std::getenv("GITHUB_EVENT_PATH");
  if (name == nullptr || std::string(name) != "issue_comment" || path == nullptr) {
    return;
  }
  const auto event = read_event(path);
  const auto* issue = util::json_member(event, "issue");
  const auto* number = issue ? util::json_member(*issue, "number") : nullptr;
  const bool numbered = number && number->is_number_unsigned();
  if (!numbered || number->get<std::uint64_t>() != pr) {
    throw UsageError(
        fmt::format("comment.json names PR {}, but the /refbench command was made on {}", pr,
                    numbered ? std::to_string(number->get<std::uint64_t>()) : std::string("no pull request")),
        "the artifact does not belong to this pull request's run; nothing was posted");
  }
}

bool read_only_token(const github::ApiError& error) {
  return error.status() == 403 && error.github_message().find("not accessible by integration") != std::string::npos;
}

} // namespace

int run_comment(const CommentOptions& o) {
  const double max_wait = std::chrono::duration<double>(o.max_wait).count();
  auto settings = github::settings_from_environment(std::getenv, max_wait);
  const std::string repo = github::repository_from(o.repo, std::getenv);
  const std::string marker = github::marker_line(o.marker);
  if (!o.from_artifact && !o.pr) {
    throw UsageError("no pull request: --pr is missing", "pass --pr N, or --from-artifact DIR");
  }
  github::CommentArtifact artifact =
      o.from_artifact ? read_artifact(*o.from_artifact) : github::CommentArtifact{*o.pr, report_body(o.file)};
  const std::string body = github::trim_body(github::with_marker(artifact.body, marker));

  github::CurlTransport transport(github::find_ca(o.cacert));
  github::Api api(std::move(settings), transport);
  try {
    if (o.from_artifact) {
      check_workflow_run(api, repo, artifact.pr);
      check_issue_comment(artifact.pr);
    }
    auto result = github::upsert_comment(api, repo, artifact.pr, marker, body);
    std::cout << fmt::format("refbench: {} comment {}\n", result.created ? "created" : "updated",
                             result.url.empty() ? std::to_string(result.id) : result.url);
  } catch (const github::ApiError& error) {
    if (!read_only_token(error)) {
      throw;
    }
    std::cout << fmt::format("::notice title=refbench::cannot comment on PR {}: the token is read-only (a pull "
                             "request from a fork?); the report is in the job summary. Use the workflow_run "
                             "commenter (see docs/manual/github-actions.md) to post it.\n",
                             artifact.pr);
  }
  return 0;
}

} // namespace refbench::pipeline
