#include <refbench/github/event.hpp>
#include <refbench/util/error.hpp>
#include <refbench/util/json_input.hpp>
#include <refbench/util/strings.hpp>

#include <algorithm>
#include <array>
#include <fmt/format.h>
#include <sstream>
#include <vector>

namespace refbench::github {
namespace {

// Who may start a run from a comment: people with write access. Anyone else
// could make a workflow with a write token build a PR's code.
constexpr std::array k_trusted_associations{"OWNER", "MEMBER", "COLLABORATOR"};

std::string string_at(const nlohmann::json& object, const char* outer, const char* inner, const std::string& source) {
  const auto* part = util::json_member(object, outer);
  const auto* value = part ? util::json_member(*part, inner) : nullptr;
  if (!value || !value->is_string() || value->get<std::string>().empty()) {
    throw UsageError(
        fmt::format("{}: no {}.{} in the pull request", source, outer, inner),
        "the payload is not a GitHub pull_request event; run outside --github with --baseline/--candidate");
  }
  return value->get<std::string>();
}

// A full commit SHA as GitHub writes one: 40 (SHA-1) or 64 (SHA-256) hex digits.
bool is_full_sha(const std::string& text) {
  return (text.size() == 40 || text.size() == 64) &&
         std::ranges::all_of(text, [](char c) { return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'); });
}

// `outer`.sha of the pull request, a full commit SHA; throws UsageError
// naming `source` for anything else (it goes to git next).
std::string sha_at(const nlohmann::json& object, const char* outer, const std::string& source) {
  std::string sha = string_at(object, outer, "sha", source);
  if (!is_full_sha(sha)) {
    throw UsageError(fmt::format("{}: {}.sha is not a commit SHA (40 or 64 hex digits): \"{}\"", source, outer,
                                 util::printable(sha.size() > 48 ? sha.substr(0, 47) + "…" : sha)),
                     "GITHUB_EVENT_PATH must be the event payload GitHub Actions wrote");
  }
  return sha;
}

std::uint64_t number_of(const nlohmann::json& object, const char* key, const std::string& source) {
  const auto* value = util::json_member(object, key);
  if (!value || !value->is_number_unsigned()) {
    throw UsageError(fmt::format("{}: \"{}\" is missing or not a positive integer", source, key),
                     "GITHUB_EVENT_PATH must be the event payload GitHub Actions wrote");
  }
  return value->get<std::uint64_t>();
}

// The words after `/refbench` on the comment's first line; nullopt when the
// comment is not a refbench command.
std::optional<std::vector<std::string>> command_words(const std::string& body) {
  std::string line = body.substr(0, body.find('\n'));
  std::istringstream words(line);
  std::string word;
  if (!(words >> word) || word != "/refbench") {
    return std::nullopt;
  }
  std::vector<std::string> rest;
  while (words >> word) {
    rest.push_back(word);
  }
  return rest;
}

std::optional<std::string> input_of(const nlohmann::json& event, const char* key) {
  const auto* inputs = util::json_member(event, "inputs");
  const auto* value = inputs ? util::json_member(*inputs, key) : nullptr;
  if (value && value->is_string() && !value->get<std::string>().empty()) {
    return value->get<std::string>();
  }
  return std::nullopt;
}

EventPlan plan_for_comment(const nlohmann::json& event, const std::string& path) {
  EventPlan plan{"issue_comment"};
  const auto* comment = util::json_member(event, "comment");
  const auto* body = comment ? util::json_member(*comment, "body") : nullptr;
  if (!body || !body->is_string()) {
    throw UsageError(path + ": issue_comment event without comment.body",
                     "GITHUB_EVENT_PATH must be the event payload GitHub Actions wrote");
  }
  if (const auto* action = util::json_member(event, "action"); action && action->is_string() && *action != "created") {
    throw RefusedError(fmt::format("the comment was {}, not created", action->get<std::string>()),
                       "run the job on issue_comment types: [created] only");
  }
  auto words = command_words(body->get<std::string>());
  if (!words) {
    throw RefusedError(
        "the comment does not start with /refbench",
        "run the job only for comments starting with /refbench (if: startsWith(github.event.comment.body, "
        "'/refbench'))");
  }
  const auto* issue = util::json_member(event, "issue");
  if (!issue || !util::json_member(*issue, "pull_request")) {
    throw RefusedError("/refbench was commented on an issue, not a pull request", "comment on a pull request");
  }
  const auto* association = util::json_member(*comment, "author_association");
  const std::string who = association && association->is_string() ? association->get<std::string>() : "NONE";
  if (std::ranges::find(k_trusted_associations, who) == k_trusted_associations.end()) {
    throw RefusedError(fmt::format("/refbench comes from a commenter without write access ({})", who),
                       "a maintainer (owner, member or collaborator) has to ask for the run");
  }
  if (words->size() != 0 && words->size() != 2) {
    throw RefusedError(fmt::format("/refbench takes no refs or two (BASE CAND), got {}", words->size()),
                       "comment `/refbench` or `/refbench BASE CAND`");
  }
  plan.pr = number_of(*issue, "number", path + ": issue");
  if (words->size() == 2) {
    plan.baseline = (*words)[0];
    plan.candidate = (*words)[1];
  } else {
    plan.needs_pull_request = true;
  }
  return plan;
}

} // namespace

void apply_pull_request(EventPlan& plan, const nlohmann::json& pull_request, const std::string& source) {
  const std::string base = sha_at(pull_request, "base", source);
  const std::string head = sha_at(pull_request, "head", source);
  if (!plan.baseline && !plan.candidate) {
    plan.pr_base_sha = base;
    plan.candidate = head;
    auto branch = [&](const char* side) -> std::optional<std::string> {
      const auto* part = util::json_member(pull_request, side);
      const auto* ref = part ? util::json_member(*part, "ref") : nullptr;
      return ref && ref->is_string() && !ref->get<std::string>().empty() ? std::optional(ref->get<std::string>())
                                                                         : std::nullopt;
    };
    plan.baseline_name = branch("base");
    plan.candidate_name = branch("head");
  }
  plan.needs_pull_request = false;
}

void refuse_pull_request_target(const std::string& event, bool allowed) {
  if (event == "pull_request_target" && !allowed) {
    throw RefusedError(
        "a pull_request_target job builds the pull request's code with a write token in reach",
        "benchmark on pull_request and post with the fork-safe commenter (see docs/manual/github-actions.md), or pass "
        "--allow-pull-request-target if this job has no secrets and a read-only token");
  }
}

EventPlan plan_for_event(const std::string& name, const std::string& payload, const std::string& path,
                         const std::string& sha) {
  auto parsed = util::parse_json(payload);
  if (!parsed || !parsed->is_object()) {
    throw UsageError(fmt::format("{} is not a JSON object{}", path, parsed ? "" : ": " + parsed.error()),
                     "GITHUB_EVENT_PATH must be the event payload GitHub Actions wrote");
  }
  const nlohmann::json& event = *parsed;
  if (name == "pull_request" || name == "pull_request_target") {
    EventPlan plan{name};
    const auto* pull_request = util::json_member(event, "pull_request");
    if (!pull_request) {
      throw UsageError(path + ": " + name + " event without pull_request",
                       "GITHUB_EVENT_PATH must be the event payload GitHub Actions wrote");
    }
    plan.pr = number_of(*pull_request, "number", path + ": pull_request");
    apply_pull_request(plan, *pull_request, path);
    return plan;
  }
  if (name == "workflow_dispatch") {
    EventPlan plan{name};
    plan.baseline = input_of(event, "baseline-ref").value_or("latest-release");
    plan.candidate = input_of(event, "candidate-ref");
    if (!plan.candidate && !sha.empty()) {
      if (!is_full_sha(sha)) {
        throw UsageError(fmt::format("GITHUB_SHA is not a commit SHA (40 or 64 hex digits): \"{}\"",
                                     util::printable(sha.size() > 48 ? sha.substr(0, 47) + "…" : sha)),
                         "run --github inside a GitHub Actions job, or name the refs with --baseline/--candidate");
      }
      plan.candidate = sha;
    }
    return plan;
  }
  if (name == "schedule") {
    return EventPlan{name, "latest-release", "default-branch"};
  }
  if (name == "issue_comment") {
    return plan_for_comment(event, path);
  }
  throw RefusedError(fmt::format("--github does not know the event '{}'", name),
                     "use it on pull_request, workflow_dispatch, schedule or issue_comment, or name the refs with "
                     "--baseline/--candidate instead of --github");
}

} // namespace refbench::github
