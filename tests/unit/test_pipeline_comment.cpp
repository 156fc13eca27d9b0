#include <doctest/doctest.h>

#include "pipeline_test_support.hpp"
#include "scratch_dir.hpp"

#include <refbench/github/comment.hpp>
#include <refbench/pipeline/comment.hpp>

#include <chrono>
#include <cstdlib>
#include <map>
#include <optional>
#include <string>

// `refbench comment` up to the network. run_comment makes its own
// CurlTransport, so the scripted FakeTransport cannot stand in for it (the
// posting itself is tested in test_github_comment.cpp through
// github::upsert_comment): these tests cover what it refuses before any
// request, with GITHUB_API_URL at a closed port of this machine so that
// nothing could leave it even if a refusal were missed.

using namespace refbench;

namespace comment_test {

constexpr const char* k_comment_test_token = "ghp_CommentTestTokenNeverShown0000000";

// For its lifetime, the GitHub Actions variables run_comment reads are set
// as a job with a token for o/r would have them (the API at 127.0.0.1:1, no
// event); `set` changes one. Restores the old values.
class CommentEnvironment {
public:
  CommentEnvironment() {
    set("GITHUB_TOKEN", k_comment_test_token);
    set("GITHUB_REPOSITORY", "o/r");
    set("GITHUB_API_URL", "http://127.0.0.1:1");
    set("GITHUB_EVENT_NAME", std::nullopt);
    set("GITHUB_EVENT_PATH", std::nullopt);
  }
  CommentEnvironment(const CommentEnvironment&) = delete;
  CommentEnvironment& operator=(const CommentEnvironment&) = delete;
  ~CommentEnvironment() {
    for (const auto& [name, value] : m_saved) {
      apply(name, value);
    }
  }

  // Sets (or with nullopt unsets) `name`, remembering its first value.
  void set(const std::string& name, const std::optional<std::string>& value) {
    if (!m_saved.contains(name)) {
      const char* old = std::getenv(name.c_str());
      m_saved[name] = old ? std::optional<std::string>(old) : std::nullopt;
    }
    apply(name, value);
  }

private:
  // Sets or unsets `name` in this process's environment.
  static void apply(const std::string& name, const std::optional<std::string>& value) {
    if (value) {
      ::setenv(name.c_str(), value->c_str(), 1);
    } else {
      ::unsetenv(name.c_str());
    }
  }

  std::map<std::string, std::optional<std::string>> m_saved;
};

// Options for PR 7 from the report.md in `dir`, written there; no retries.
pipeline::CommentOptions comment_options(const test::ScratchDir& dir) {
  test::write_file(dir.path() / "report.md", "### refbench: ✅ no regression\n\n| cell | ratio |\n");
  pipeline::CommentOptions o;
  o.pr = 7;
  o.file = dir / "report.md";
  o.max_wait = std::chrono::seconds(0);
  return o;
}

// The error run_comment throws for `o`, stdout captured: nothing may be printed before a refusal.
test::Thrown comment_refusal(const pipeline::CommentOptions& o) {
  test::CapturedOutput captured;
  const auto thrown = test::thrown_by([&] { pipeline::run_comment(o); });
  CHECK(captured.out.str().empty());
  CHECK(thrown.what.find(k_comment_test_token) == std::string::npos);
  return thrown;
}

// comment.json of `pr` with `body`, as `run --github` writes it, into `dir`.
void comment_write_artifact(const std::filesystem::path& dir, std::uint64_t pr, const std::string& body) {
  test::write_file(dir / "comment.json", github::comment_artifact_json({pr, body}));
}

} // namespace comment_test

using namespace comment_test;

TEST_CASE("pipeline::run_comment: without a token, a repository, a valid marker or a PR it is exit 2") {
  test::ScratchDir dir;
  CommentEnvironment env;
  auto o = comment_options(dir);

  SUBCASE("no token") {
    env.set("GITHUB_TOKEN", std::nullopt);
    const auto thrown = comment_refusal(o);
    CHECK(thrown.code == 2);
    CHECK(thrown.what == "GITHUB_TOKEN is not set");
  }
  SUBCASE("no repository") {
    env.set("GITHUB_REPOSITORY", std::nullopt);
    const auto thrown = comment_refusal(o);
    CHECK(thrown.code == 2);
    CHECK(thrown.what == "no repository: GITHUB_REPOSITORY is not set");
  }
  SUBCASE("--repo that is not OWNER/NAME") {
    o.repo = "o/r/extra";
    CHECK(comment_refusal(o).code == 2);
  }
  SUBCASE("a marker with a space") {
    o.marker = "pr linux";
    const auto thrown = comment_refusal(o);
    CHECK(thrown.code == 2);
    CHECK(thrown.what.find("--marker 'pr linux'") != std::string::npos);
  }
  SUBCASE("neither --pr nor --from-artifact") {
    o.pr.reset();
    const auto thrown = comment_refusal(o);
    CHECK(thrown.code == 2);
    CHECK(thrown.what == "no pull request: --pr is missing");
  }
}

TEST_CASE("pipeline::run_comment: a report or artifact it cannot read is exit 2, naming the file") {
  test::ScratchDir dir;
  CommentEnvironment env;
  auto o = comment_options(dir);

  SUBCASE("--file missing") {
    o.file = dir / "absent.md";
    const auto thrown = comment_refusal(o);
    CHECK(thrown.code == 2);
    CHECK(thrown.what.find(dir / "absent.md") != std::string::npos);
  }
  SUBCASE("--file results.json that is not JSON") {
    test::write_file(dir.path() / "results.json", "not json");
    o.file = dir / "results.json";
    const auto thrown = comment_refusal(o);
    CHECK(thrown.code == 2);
    CHECK(thrown.what == dir / "results.json" + " is not a results.json");
  }
  SUBCASE("--from-artifact without comment.json") {
    o.from_artifact = dir / "artifact";
    const auto thrown = comment_refusal(o);
    CHECK(thrown.code == 2);
    CHECK(thrown.what.find("cannot read " + dir / "artifact/comment.json") == 0);
  }
  SUBCASE("--from-artifact whose body has no marker") {
    comment_write_artifact(dir.path() / "artifact", 7, "### a report without its marker line\n");
    o.from_artifact = dir / "artifact";
    const auto thrown = comment_refusal(o);
    CHECK(thrown.code == 2);
    CHECK(thrown.what.find("does not start with a refbench marker line") != std::string::npos);
  }
  SUBCASE("--from-artifact larger than a report can be") {
    test::write_file(dir.path() / "artifact/comment.json", std::string(github::k_artifact_limit + 1, ' '));
    o.from_artifact = dir / "artifact";
    const auto thrown = comment_refusal(o);
    CHECK(thrown.code == 2);
    CHECK(thrown.what.find("more than the 1048576 a report can be") != std::string::npos);
  }
}

TEST_CASE("pipeline::run_comment: an artifact for another PR than the event's is refused before any request") {
  test::ScratchDir dir;
  CommentEnvironment env;
  auto o = comment_options(dir);
  comment_write_artifact(dir.path() / "artifact", 7, "<!-- refbench -->\n### refbench: ✅ no regression\n");
  o.from_artifact = dir / "artifact";

  SUBCASE("a /refbench command made on PR 8") {
    test::write_file(dir.path() / "event.json", R"({"issue": {"number": 8, "pull_request": {}}})");
    env.set("GITHUB_EVENT_NAME", "issue_comment");
    env.set("GITHUB_EVENT_PATH", dir / "event.json");
    const auto thrown = comment_refusal(o);
    CHECK(thrown.code == 2);
    CHECK(thrown.what == "comment.json names PR 7, but the /refbench command was made on 8");
  }
  SUBCASE("a workflow_run event without its head_sha") {
    test::write_file(dir.path() / "event.json", R"({"workflow_run": {"id": 1}})");
    env.set("GITHUB_EVENT_NAME", "workflow_run");
    env.set("GITHUB_EVENT_PATH", dir / "event.json");
    const auto thrown = comment_refusal(o);
    CHECK(thrown.code == 2);
    CHECK(thrown.what == dir / "event.json" + ": workflow_run event without workflow_run.head_sha");
  }
}

TEST_CASE("pipeline::run_comment: a plain-http API off this machine is refused (exit 2) before the token is sent") {
  test::ScratchDir dir;
  CommentEnvironment env;
  env.set("GITHUB_API_URL", "http://api.example.invalid");
  const auto thrown = comment_refusal(comment_options(dir));
  CHECK(thrown.code == 2);
  CHECK(thrown.what.find("is plain http: the token would cross the network unencrypted") != std::string::npos);
}
