#include <doctest/doctest.h>

#include "git_test_support.hpp"

#include <refbench/git/refs.hpp>
#include <refbench/util/error.hpp>

#include <string>
#include <vector>

using namespace refbench::git;
using refbench::RefusedError;
using refbench::test::create_history_repo;
using refbench::test::IsolatedGitEnvironment;
using refbench::test::refusal_line;
using refbench::test::sh;
using refbench::test::TempDir;

namespace {

constexpr const char* k_sha = "1a2b3c4d5e6f7a8b9c0d1a2b3c4d5e6f7a8b9c0d";

// The invariants README promises for every directory name.
void check_safe_directory_name(const std::string& name) {
  INFO("name: " << name);
  CHECK(!name.empty());
  CHECK(name.size() <= 100);
  CHECK(name.find("..") == std::string::npos);
  CHECK(name.front() != '.');
  CHECK(name.front() != '-');
  CHECK(name.find_first_not_of("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789._-") ==
        std::string::npos);
  CHECK(name.ends_with("-1a2b3c4d5e6f"));
}

} // namespace

TEST_CASE("git::directory_name") {
  SUBCASE("the README example and plain names") {
    CHECK(directory_name("feat/x", k_sha) == "feat--x-1a2b3c4d5e6f");
    CHECK(directory_name("main", k_sha) == "main-1a2b3c4d5e6f");
    CHECK(directory_name("v1.2.0", k_sha) == "v1.2.0-1a2b3c4d5e6f");
    CHECK(directory_name("origin/release_2-x", k_sha) == "origin--release_2-x-1a2b3c4d5e6f");
  }
  SUBCASE("never .. and never a leading dot or dash") {
    CHECK(directory_name("..", k_sha) == "_.-1a2b3c4d5e6f");
    CHECK(directory_name(".", k_sha) == "_-1a2b3c4d5e6f");
    CHECK(directory_name("a..b", k_sha) == "a._b-1a2b3c4d5e6f");
    CHECK(directory_name("a...b", k_sha) == "a._.b-1a2b3c4d5e6f");
    CHECK(directory_name("../../etc", k_sha) == "_.--._--etc-1a2b3c4d5e6f");
    CHECK(directory_name(".hidden", k_sha) == "_hidden-1a2b3c4d5e6f");
    CHECK(directory_name("-x", k_sha) == "_x-1a2b3c4d5e6f");
  }
  SUBCASE("characters outside [A-Za-z0-9._-] become _") {
    CHECK(directory_name("HEAD~1^2", k_sha) == "HEAD_1_2-1a2b3c4d5e6f");
    CHECK(directory_name("a b:c*d?e[f]\\g", k_sha) == "a_b_c_d_e_f__g-1a2b3c4d5e6f");
    CHECK(directory_name("tab\there\nnewline", k_sha) == "tab_here_newline-1a2b3c4d5e6f");
    CHECK(directory_name("@{upstream}", k_sha) == "__upstream_-1a2b3c4d5e6f");
  }
  SUBCASE("one _ per UTF-8 code point") {
    CHECK(directory_name("na\u00efve/\u00fc", k_sha) == "na_ve--_-1a2b3c4d5e6f");
    CHECK(directory_name("\u65e5\u672c", k_sha) == "__-1a2b3c4d5e6f");
    CHECK(directory_name("\U0001F680x", k_sha) == "_x-1a2b3c4d5e6f");
  }
  SUBCASE("long refs are truncated to 100 bytes in all") {
    auto name = directory_name(std::string(300, 'a'), k_sha);
    CHECK(name.size() == 100);
    CHECK(name == std::string(87, 'a') + "-1a2b3c4d5e6f");
    CHECK(directory_name(std::string(300, '/'), k_sha).size() == 100);
    std::string accents;
    for (int i = 0; i < 300; ++i) {
      accents += "\u00e9";
    }
    CHECK(directory_name(accents, k_sha) == std::string(87, '_') + "-1a2b3c4d5e6f");
  }
  SUBCASE("an empty ref is named ref") { CHECK(directory_name("", k_sha) == "ref-1a2b3c4d5e6f"); }
  SUBCASE("every name keeps the invariants") {
    for (const std::string& ref :
         std::vector<std::string>{"", ".", "..", "...", "/", "//..//", "-", "--", ".-.", "a/../b", "\u00e9..\u00e9",
                                  std::string(99, '.'), std::string(200, '.') + "x", std::string(150, '-')}) {
      check_safe_directory_name(directory_name(ref, k_sha));
    }
  }
}

TEST_CASE("git::latest_release") {
  using Tags = std::vector<std::string>;
  SUBCASE("what a release tag is") {
    for (const char* tag : {"v1.2.0", "1.2.0", "v10.20.30", "v01.2.0", "0.0.0", "v99999999999999999999.0.0"}) {
      INFO(tag);
      CHECK(latest_release(Tags{tag}) == tag);
    }
    for (const char* tag : {"", "v", "v1.2", "v1.2.0-rc1", "v1.2.0-beta", "V1.2.0", "vv1.2.0", "v1.2.0.1", "v1..2",
                            "v1.2.x", " v1.2.0", "v1.2.0 ", "release-1.2.0", "v1.2.0\n", "v-1.2.0", "v+1.2.0"}) {
      INFO(tag);
      CHECK(latest_release(Tags{tag}) == std::nullopt);
    }
  }
  SUBCASE("pre-releases are excluded") {
    CHECK(latest_release(Tags{"v1.2.0", "v1.10.0-rc1", "v1.2.0-beta"}) == "v1.2.0");
    CHECK(latest_release(Tags{"v1.10.0-rc1", "v1.2.0-beta", "v1.2.0"}) == "v1.2.0");
  }
  SUBCASE("numeric order, not string order") {
    CHECK(latest_release(Tags{"v1.9.0", "v1.10.0"}) == "v1.10.0");
    CHECK(latest_release(Tags{"v1.10.0", "v1.9.0"}) == "v1.10.0");
    CHECK(latest_release(Tags{"v1.2.0", "v1.10.0", "v1.9.3"}) == "v1.10.0");
    CHECK(latest_release(Tags{"v1.2.10", "v1.2.9"}) == "v1.2.10");
    CHECK(latest_release(Tags{"v2.0.0", "v10.0.0", "v9.99.99"}) == "v10.0.0");
    CHECK(latest_release(Tags{"2.0.0", "v1.99.99"}) == "2.0.0");
    CHECK(latest_release(Tags{"v1.0.0", "v99999999999999999999.0.0"}) == "v99999999999999999999.0.0");
  }
  SUBCASE("ties prefer the v, then the canonical spelling") {
    CHECK(latest_release(Tags{"1.2.0", "v1.2.0"}) == "v1.2.0");
    CHECK(latest_release(Tags{"v1.2.0", "1.2.0"}) == "v1.2.0");
    CHECK(latest_release(Tags{"v01.2.0", "v1.2.0"}) == "v1.2.0");
    CHECK(latest_release(Tags{"v1.2.0", "v01.2.0"}) == "v1.2.0");
  }
  SUBCASE("no release tags") {
    CHECK(latest_release(Tags{}) == std::nullopt);
    CHECK(latest_release(Tags{"nightly", "v2.0.0-rc1", "v1.2"}) == std::nullopt);
  }
}

TEST_CASE("git::run_git and is_repository") {
  IsolatedGitEnvironment environment;
  TempDir dir;
  auto repo = create_history_repo(dir);
  SUBCASE("stdout without the trailing newline") {
    CHECK(run_git(repo, {"rev-parse", "--abbrev-ref", "HEAD"}) == "main");
    CHECK(run_git(repo, {"show", "-s", "--format=%s", "main~1"}) == "two");
  }
  SUBCASE("a failure throws GitError with git's exit code and stderr") {
    try {
      run_git(repo, {"rev-parse", "--verify", "no-such-ref"});
      FAIL("no GitError");
    } catch (const GitError& error) {
      CHECK(error.exit_code() == 128);
      CHECK(error.stderr_tail().find("fatal") != std::string::npos);
      CHECK(std::string(error.what()).find("git rev-parse --verify no-such-ref") != std::string::npos);
    }
  }
  SUBCASE("a GIT_DIR in the environment (as in a git hook) does not redirect it") {
    ::setenv("GIT_DIR", (dir / "elsewhere").c_str(), 1);
    auto branch = run_git(repo, {"rev-parse", "--abbrev-ref", "HEAD"});
    ::unsetenv("GIT_DIR");
    CHECK(branch == "main");
  }
  SUBCASE("is_repository") {
    CHECK(is_repository(repo));
    CHECK(is_repository(repo + "/dir"));
    CHECK_FALSE(is_repository(dir.path().string()));
    CHECK_FALSE(is_repository(dir / "missing"));
  }
}

TEST_CASE("git::resolve default-branch") {
  IsolatedGitEnvironment environment;
  TempDir dir;
  auto default_branch = [](const std::string& repo) { return resolve(repo, "default-branch").name; };
  SUBCASE("main") { CHECK(default_branch(create_history_repo(dir)) == "main"); }
  SUBCASE("origin/HEAD wins") {
    create_history_repo(dir);
    sh("git clone -q repo clone && git -C clone checkout -q -b topic", dir.path().string());
    CHECK(default_branch(dir / "clone") == "origin/main");
  }
  SUBCASE("master") {
    sh("git init -q -b master old && git -C old commit -q --allow-empty -m one", dir.path().string());
    CHECK(default_branch(dir / "old") == "master");
  }
  SUBCASE("only remote-tracking main, as in a CI checkout") {
    create_history_repo(dir);
    sh("git init -q -b topic ci && cd ci && git fetch -q ../repo main:refs/remotes/origin/main && "
       "git checkout -q --detach origin/main",
       dir.path().string());
    CHECK(default_branch(dir / "ci") == "origin/main");
  }
  SUBCASE("none") {
    sh("git init -q -b trunk odd && git -C odd commit -q --allow-empty -m one", dir.path().string());
    CHECK(refusal_line([&] { default_branch(dir / "odd"); }) ==
          "refbench: error: no default branch: " + (dir / "odd") +
              " has no origin/HEAD and no main or master branch — name the ref explicitly");
  }
}

TEST_CASE("git::resolve") {
  IsolatedGitEnvironment environment;
  TempDir dir;
  auto repo = create_history_repo(dir);
  auto sha_of = [&](const std::string& spec) { return run_git(repo, {"rev-parse", spec + "^{commit}"}); };

  SUBCASE("a full and a short sha") {
    auto sha = sha_of("main~1");
    auto resolved = resolve(repo, sha);
    CHECK(resolved.ref == sha);
    CHECK(resolved.sha == sha);
    CHECK(resolved.dir_name == sha + "-" + sha.substr(0, 12));
    CHECK(resolve(repo, sha.substr(0, 8)).sha == sha);
  }
  SUBCASE("a branch, a tag and an expression") {
    auto branch = resolve(repo, "feat/x");
    CHECK(branch.ref == "feat/x");
    CHECK(branch.sha == sha_of("feat/x"));
    CHECK(branch.dir_name == "feat--x-" + branch.sha.substr(0, 12));
    auto tag = resolve(repo, "v1.2.0"); // annotated: peeled to its commit
    CHECK(tag.sha == sha_of("main~2"));
    CHECK(tag.sha != run_git(repo, {"rev-parse", "v1.2.0"}));
    CHECK(resolve(repo, "HEAD~1").dir_name == "HEAD_1-" + sha_of("main~1").substr(0, 12));
  }
  SUBCASE("latest-release") {
    auto resolved = resolve(repo, "latest-release");
    CHECK(resolved.ref == "latest-release");
    CHECK(resolved.sha == sha_of("main~2"));
    CHECK(resolved.dir_name == "v1.2.0-" + resolved.sha.substr(0, 12));
  }
  SUBCASE("default-branch") {
    auto resolved = resolve(repo, "default-branch");
    CHECK(resolved.ref == "default-branch");
    CHECK(resolved.sha == sha_of("main"));
    CHECK(resolved.dir_name == "main-" + resolved.sha.substr(0, 12));
  }
  SUBCASE("merge-base of the candidate and the default branch") {
    auto resolved = resolve(repo, "merge-base", sha_of("feat/x"));
    CHECK(resolved.ref == "merge-base");
    CHECK(resolved.sha == sha_of("main~1"));
    CHECK(resolved.dir_name == "merge-base-" + resolved.sha.substr(0, 12));
    CHECK(resolve(repo, "merge-base", sha_of("main")).sha == sha_of("main"));
  }
  SUBCASE("merge-base without a candidate or a common ancestor") {
    CHECK(refusal_line([&] { resolve(repo, "merge-base"); }) ==
          "refbench: error: merge-base needs the candidate's commit — use merge-base as the baseline and name the "
          "candidate ref");
    sh("git checkout -q --orphan lonely && git commit -q -m lonely", repo);
    CHECK(refusal_line([&] { resolve(repo, "merge-base", sha_of("lonely")); }) ==
          "refbench: error: merge-base: the candidate and main have no common ancestor — name the baseline ref "
          "explicitly");
  }
  SUBCASE("refusals") {
    CHECK(refusal_line([&] { resolve(repo, "-x"); }) ==
          "refbench: error: ref '-x' starts with '-' — refbench passes no options to git; name a branch, tag or "
          "commit");
    CHECK(refusal_line([&] { resolve(repo, "--all"); }).starts_with("refbench: error: ref '--all' starts with '-'"));
    CHECK(refusal_line([&] { resolve(repo, ""); }).starts_with("refbench: error: empty ref — "));
    CHECK(refusal_line([&] { resolve(repo, "nope"); }) ==
          "refbench: error: ref 'nope' does not resolve to a commit in " + repo +
              " — check the name, or fetch it (git fetch --tags)");
    CHECK(refusal_line([&] { resolve(repo, "main:a.txt"); }).find("does not resolve to a commit") != std::string::npos);
    CHECK(
        refusal_line([&] { resolve(dir / "missing", "main"); }).starts_with("refbench: error: cannot resolve 'main'"));
  }
  SUBCASE("latest-release without release tags") {
    sh("git tag -d v1.2.0 >/dev/null", repo);
    CHECK(refusal_line([&] { resolve(repo, "latest-release"); }) ==
          "refbench: error: latest-release: the repository has no release tags (vX.Y.Z) — fetch them (git fetch "
          "--tags), or name the baseline ref explicitly");
  }
}
