#include <doctest/doctest.h>

#include <refbench/github/event.hpp>
#include <refbench/util/error.hpp>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>

using namespace refbench;
using namespace refbench::github;

namespace {

constexpr const char* k_event_sha = "0c1d2e3f4a5b6c7d8e9f0a1b2c3d4e5f6a7b8c9d"; // GITHUB_SHA
constexpr const char* k_base_sha = "3a5c7e9b1d2f4a6c8e0b2d4f6a8c0e1b3d5f7a9c";
constexpr const char* k_head_sha = "9f1c2a7e4b3d8c6f0a5e1b9d7c3f2a4e6b8d0c1f";

std::string fixture_path(const std::string& name) {
  return (std::filesystem::path(REFBENCH_FIXTURES_DIR) / "events" / name).string();
}

std::string fixture(const std::string& name) {
  std::ifstream in(fixture_path(name), std::ios::binary);
  if (!in) {
    throw std::runtime_error("missing fixture " + fixture_path(name));
  }
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

// plan_for_event on the fixture `name` as the event `event`.
EventPlan plan(const std::string& event, const std::string& name) {
  return plan_for_event(event, fixture(name), fixture_path(name), k_event_sha);
}

} // namespace

TEST_CASE("github::refuse_pull_request_target") {
  SUBCASE("refused unless allowed, saying why and what to do") {
    try {
      refuse_pull_request_target("pull_request_target", false);
      FAIL("no RefusedError");
    } catch (const RefusedError& error) {
      CHECK(error.code() == ExitCode::refused);
      CHECK(std::string(error.what()).find("write token") != std::string::npos);
      CHECK(error.hint().find("pull_request") != std::string::npos);
      CHECK(error.hint().find("commenter") != std::string::npos);
      CHECK(error.hint().find("--allow-pull-request-target") != std::string::npos);
    }
  }
  SUBCASE("allowed: the payload reads as a pull request") {
    CHECK_NOTHROW(refuse_pull_request_target("pull_request_target", true));
    const auto p = plan("pull_request_target", "pull_request_target.json");
    CHECK(p.pr == 42u);
    CHECK(p.candidate == k_head_sha);
  }
  SUBCASE("other events pass") {
    for (const char* event : {"pull_request", "issue_comment", "schedule", "workflow_dispatch"}) {
      CAPTURE(event);
      CHECK_NOTHROW(refuse_pull_request_target(event, false));
    }
  }
}

TEST_CASE("github::plan_for_event pull_request") {
  SUBCASE("merge base of base.sha and head.sha vs head.sha") {
    const auto p = plan("pull_request", "pull_request.json");
    CHECK(p.event == "pull_request");
    CHECK_FALSE(p.baseline.has_value());
    CHECK(p.pr_base_sha == k_base_sha);
    CHECK(p.candidate == k_head_sha);
    CHECK(p.pr == 42u);
    CHECK_FALSE(p.needs_pull_request);
  }
  SUBCASE("pull_request_target reads the same payload") {
    const auto p = plan("pull_request_target", "pull_request.json");
    CHECK(p.event == "pull_request_target");
    CHECK(p.pr_base_sha == k_base_sha);
    CHECK(p.candidate == k_head_sha);
    CHECK(p.pr == 42u);
  }
  SUBCASE("no head.sha") {
    REQUIRE_THROWS_AS(plan("pull_request", "malformed_pull_request_no_head_sha.json"), UsageError);
    CHECK_THROWS_WITH_AS(plan("pull_request", "malformed_pull_request_no_head_sha.json"), doctest::Contains("head.sha"),
                         UsageError);
    CHECK_THROWS_WITH_AS(plan("pull_request", "malformed_pull_request_no_head_sha.json"),
                         doctest::Contains("malformed_pull_request_no_head_sha.json"), UsageError);
  }
  SUBCASE("number as a string") {
    REQUIRE_THROWS_AS(plan("pull_request", "malformed_pull_request_number_string.json"), UsageError);
    CHECK_THROWS_WITH_AS(plan("pull_request", "malformed_pull_request_number_string.json"),
                         doctest::Contains("\"number\""), UsageError);
  }
  SUBCASE("no pull_request object") {
    CHECK_THROWS_WITH_AS(plan_for_event("pull_request", R"({"action":"opened","number":3})", "event.json", k_event_sha),
                         doctest::Contains("without pull_request"), UsageError);
  }
  SUBCASE("empty base.sha") {
    const std::string payload =
        R"({"pull_request":{"number":3,"base":{"sha":""},"head":{"sha":"9f1c2a7e4b3d8c6f0a5e1b9d7c3f2a4e6b8d0c1f"}}})";
    CHECK_THROWS_WITH_AS(plan_for_event("pull_request", payload, "event.json", k_event_sha),
                         doctest::Contains("base.sha"), UsageError);
  }
}

TEST_CASE("github::plan_for_event workflow_dispatch") {
  SUBCASE("the inputs name the refs") {
    const auto p = plan("workflow_dispatch", "workflow_dispatch_inputs.json");
    CHECK(p.event == "workflow_dispatch");
    CHECK(p.baseline == "v1.2.0");
    CHECK(p.candidate == "feature/faster-parser");
    CHECK_FALSE(p.pr_base_sha.has_value());
    CHECK_FALSE(p.pr.has_value());
    CHECK_FALSE(p.needs_pull_request);
  }
  SUBCASE("no inputs: the latest release vs the commit of the run") {
    const auto p = plan("workflow_dispatch", "workflow_dispatch_no_inputs.json");
    CHECK(p.baseline == "latest-release");
    CHECK(p.candidate == k_event_sha);
    CHECK_FALSE(p.pr_base_sha.has_value());
    CHECK_FALSE(p.pr.has_value());
  }
  SUBCASE("inputs left empty count as missing") {
    const auto p = plan_for_event("workflow_dispatch", R"({"inputs":{"baseline-ref":"","candidate-ref":""}})",
                                  "event.json", k_event_sha);
    CHECK(p.baseline == "latest-release");
    CHECK(p.candidate == k_event_sha);
  }
  SUBCASE("only the baseline given") {
    const auto p =
        plan_for_event("workflow_dispatch", R"({"inputs":{"baseline-ref":"v0.9.0"}})", "event.json", k_event_sha);
    CHECK(p.baseline == "v0.9.0");
    CHECK(p.candidate == k_event_sha);
  }
}

TEST_CASE("github::plan_for_event schedule") {
  const auto p = plan("schedule", "schedule.json");
  CHECK(p.event == "schedule");
  CHECK(p.baseline == "latest-release");
  CHECK(p.candidate == "default-branch");
  CHECK_FALSE(p.pr_base_sha.has_value());
  CHECK_FALSE(p.pr.has_value());
  CHECK_FALSE(p.needs_pull_request);
}

TEST_CASE("github::plan_for_event issue_comment") {
  SUBCASE("/refbench on a PR needs the PR's refs") {
    auto p = plan("issue_comment", "issue_comment_pr.json");
    CHECK(p.event == "issue_comment");
    CHECK(p.needs_pull_request);
    CHECK(p.pr == 42u);
    CHECK_FALSE(p.baseline.has_value());
    CHECK_FALSE(p.candidate.has_value());
    CHECK_FALSE(p.pr_base_sha.has_value());

    const auto pull = nlohmann::json::parse(fixture("pulls_42_api_answer.json"));
    apply_pull_request(p, pull, "pull request 42");
    CHECK_FALSE(p.needs_pull_request);
    CHECK(p.pr_base_sha == k_base_sha);
    CHECK(p.candidate == k_head_sha);
    CHECK_FALSE(p.baseline.has_value());
    CHECK(p.pr == 42u);
  }
  SUBCASE("/refbench BASE CAND names the refs") {
    auto p = plan("issue_comment", "issue_comment_pr_refs.json");
    CHECK(p.baseline == "v1.0.0");
    CHECK(p.candidate == "main");
    CHECK(p.pr == 42u);
    CHECK_FALSE(p.needs_pull_request);
    CHECK_FALSE(p.pr_base_sha.has_value());

    // the PR object does not override explicit refs
    apply_pull_request(p, nlohmann::json::parse(fixture("pulls_42_api_answer.json")), "pull request 42");
    CHECK(p.baseline == "v1.0.0");
    CHECK(p.candidate == "main");
    CHECK_FALSE(p.pr_base_sha.has_value());
  }
  SUBCASE("on a plain issue") {
    REQUIRE_THROWS_AS(plan("issue_comment", "issue_comment_issue.json"), RefusedError);
    CHECK_THROWS_WITH_AS(plan("issue_comment", "issue_comment_issue.json"), doctest::Contains("not a pull request"),
                         RefusedError);
  }
  SUBCASE("from a commenter without write access") {
    REQUIRE_THROWS_AS(plan("issue_comment", "issue_comment_untrusted.json"), RefusedError);
    CHECK_THROWS_WITH_AS(plan("issue_comment", "issue_comment_untrusted.json"), doctest::Contains("(NONE)"),
                         RefusedError);
  }
  SUBCASE("an edited comment does not start a run") {
    std::string edited = fixture("issue_comment_pr_refs.json");
    const auto at = edited.find("\"created\"");
    REQUIRE(at != std::string::npos);
    edited.replace(at, 9, "\"edited\"");
    CHECK_THROWS_WITH_AS(plan_for_event("issue_comment", edited, "edited.json", k_event_sha),
                         doctest::Contains("the comment was edited, not created"), RefusedError);
  }
  SUBCASE("one ref") {
    REQUIRE_THROWS_AS(plan("issue_comment", "issue_comment_one_ref.json"), RefusedError);
    CHECK_THROWS_WITH_AS(plan("issue_comment", "issue_comment_one_ref.json"), doctest::Contains("got 1"), RefusedError);
  }
  SUBCASE("a comment that does not start with /refbench") {
    REQUIRE_THROWS_AS(plan("issue_comment", "issue_comment_chatter.json"), RefusedError);
    CHECK_THROWS_WITH_AS(plan("issue_comment", "issue_comment_chatter.json"),
                         doctest::Contains("does not start with /refbench"), RefusedError);
  }
  SUBCASE("the command word must be exactly /refbench") {
    auto payload = nlohmann::json::parse(fixture("issue_comment_pr.json"));
    for (const std::string body : {"/refbenchmark", "/Refbench", "refbench", "", "\n/refbench"}) {
      CAPTURE(body);
      payload["comment"]["body"] = body;
      CHECK_THROWS_AS(plan_for_event("issue_comment", payload.dump(), "event.json", k_event_sha), RefusedError);
    }
  }
  SUBCASE("three refs") {
    auto payload = nlohmann::json::parse(fixture("issue_comment_pr.json"));
    payload["comment"]["body"] = "/refbench a b c";
    CHECK_THROWS_WITH_AS(plan_for_event("issue_comment", payload.dump(), "event.json", k_event_sha),
                         doctest::Contains("got 3"), RefusedError);
  }
  SUBCASE("owner, member and collaborator are trusted; others are not") {
    auto payload = nlohmann::json::parse(fixture("issue_comment_pr.json"));
    for (const std::string who : {"OWNER", "MEMBER", "COLLABORATOR"}) {
      CAPTURE(who);
      payload["comment"]["author_association"] = who;
      CHECK(plan_for_event("issue_comment", payload.dump(), "event.json", k_event_sha).pr == 42u);
    }
    for (const std::string who : {"CONTRIBUTOR", "FIRST_TIME_CONTRIBUTOR", "FIRST_TIMER", "MANNEQUIN", "NONE"}) {
      CAPTURE(who);
      payload["comment"]["author_association"] = who;
      CHECK_THROWS_AS(plan_for_event("issue_comment", payload.dump(), "event.json", k_event_sha), RefusedError);
    }
    payload["comment"].erase("author_association");
    CHECK_THROWS_AS(plan_for_event("issue_comment", payload.dump(), "event.json", k_event_sha), RefusedError);
  }
  SUBCASE("no comment body") {
    auto payload = nlohmann::json::parse(fixture("issue_comment_pr.json"));
    payload["comment"].erase("body");
    CHECK_THROWS_WITH_AS(plan_for_event("issue_comment", payload.dump(), "event.json", k_event_sha),
                         doctest::Contains("comment.body"), UsageError);
  }
  SUBCASE("issue number as a string") {
    auto payload = nlohmann::json::parse(fixture("issue_comment_pr.json"));
    payload["issue"]["number"] = "42";
    CHECK_THROWS_WITH_AS(plan_for_event("issue_comment", payload.dump(), "event.json", k_event_sha),
                         doctest::Contains("\"number\""), UsageError);
  }
}

TEST_CASE("github::plan_for_event refuses other events and bad payloads") {
  SUBCASE("unknown event") {
    REQUIRE_THROWS_AS(plan_for_event("push", R"({"ref":"refs/heads/main"})", "event.json", k_event_sha), RefusedError);
    CHECK_THROWS_WITH_AS(plan_for_event("workflow_run", "{}", "event.json", k_event_sha),
                         doctest::Contains("'workflow_run'"), RefusedError);
  }
  SUBCASE("malformed JSON") {
    for (const std::string event : {"pull_request", "workflow_dispatch", "schedule", "issue_comment", "push"}) {
      CAPTURE(event);
      REQUIRE_THROWS_AS(plan(event, "malformed_truncated.json"), UsageError);
      CHECK_THROWS_WITH_AS(plan(event, "malformed_truncated.json"),
                           doctest::Contains("malformed_truncated.json is not a JSON object"), UsageError);
    }
    CHECK_THROWS_AS(plan_for_event("schedule", "[]", "event.json", k_event_sha), UsageError);
    CHECK_THROWS_AS(plan_for_event("schedule", "", "event.json", k_event_sha), UsageError);
  }
}

TEST_CASE("github::apply_pull_request") {
  const auto pull = nlohmann::json::parse(fixture("pulls_42_api_answer.json"));
  SUBCASE("fills the refs of a bare plan") {
    EventPlan p{"issue_comment"};
    p.pr = 42;
    p.needs_pull_request = true;
    apply_pull_request(p, pull, "pull request 42");
    CHECK(p.pr_base_sha == k_base_sha);
    CHECK(p.candidate == k_head_sha);
    CHECK_FALSE(p.baseline.has_value());
    CHECK_FALSE(p.needs_pull_request);
  }
  SUBCASE("missing shas name the source") {
    EventPlan p{"issue_comment"};
    auto no_head = pull;
    no_head["head"].erase("sha");
    CHECK_THROWS_WITH_AS(apply_pull_request(p, no_head, "pull request 42"),
                         doctest::Contains("pull request 42: no head.sha"), UsageError);
    auto no_base = pull;
    no_base.erase("base");
    CHECK_THROWS_WITH_AS(apply_pull_request(p, no_base, "pull request 42"), doctest::Contains("base.sha"), UsageError);
    CHECK_THROWS_AS(apply_pull_request(p, nlohmann::json::array(), "pull request 42"), UsageError);
  }
}
