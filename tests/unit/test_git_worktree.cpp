#include <doctest/doctest.h>

#include "git_test_support.hpp"

#include <refbench/git/refs.hpp>
#include <refbench/git/worktree.hpp>
#include <refbench/util/error.hpp>

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

using namespace refbench::git;
using refbench::test::create_history_repo;
using refbench::test::IsolatedGitEnvironment;
using refbench::test::refusal_line;
using refbench::test::sh;
using refbench::test::TempDir;

namespace {

std::string read_text(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

// True when `git worktree list` of `repo` shows `path`.
bool listed(const std::string& repo, const std::string& path) {
  auto list = run_git(repo, {"worktree", "list", "--porcelain"}) + "\n";
  return list.find("worktree " + path + "\n") != std::string::npos;
}

// The sum of the sizes of the regular files under `dir`, .git excluded.
std::uint64_t file_bytes(const std::filesystem::path& dir) {
  std::uint64_t total = 0;
  for (auto it = std::filesystem::recursive_directory_iterator(dir); it != std::filesystem::end(it); ++it) {
    if (it->path().filename() == ".git") {
      it.disable_recursion_pending();
    } else if (it->is_regular_file()) {
      total += it->file_size();
    }
  }
  return total;
}

// Adds to `repo` the submodule "sub" (itself with the submodule "inner"),
// both made from local repositories under `dir`, and commits.
void add_nested_submodules(const TempDir& dir, const std::string& repo) {
  sh(R"(git init -q -b main inner
printf 'inner\n' > inner/i.txt
git -C inner add i.txt
git -C inner commit -q -m inner
git init -q -b main sub
printf 'sub\n' > sub/s.txt
git -C sub add s.txt
git -C sub commit -q -m sub
git -C sub submodule add -q "$PWD/inner" inner
git -C sub commit -q -m 'add inner'
)",
     dir.path().string());
  sh("git submodule add -q \"" + (dir / "sub") + "\" sub && git commit -q -m 'add sub'", repo);
}

} // namespace

TEST_CASE("git::Worktree add and remove") {
  IsolatedGitEnvironment environment;
  TempDir dir;
  auto repo = create_history_repo(dir);
  auto first = run_git(repo, {"rev-parse", "main~2"});
  auto path = dir / "arms/a";

  SUBCASE("checks out the commit detached, and removes it again") {
    auto worktree = Worktree::add(repo, first, path);
    CHECK(worktree.path() == path);
    CHECK(read_text(path + "/a.txt") == "one\n");
    CHECK_FALSE(std::filesystem::exists(path + "/dir"));
    CHECK(run_git(path, {"rev-parse", "HEAD"}) == first);
    CHECK(run_git(path, {"rev-parse", "--abbrev-ref", "HEAD"}) == "HEAD");
    CHECK(listed(repo, path));
    worktree.remove();
    CHECK_FALSE(std::filesystem::exists(path));
    CHECK_FALSE(listed(repo, path));
    worktree.remove();
    CHECK_FALSE(listed(repo, path));
  }
  SUBCASE("removes build outputs and changed files with it") {
    auto worktree = Worktree::add(repo, first, path);
    sh("mkdir build && echo obj > build/x.o && echo changed > a.txt", path);
    worktree.remove();
    CHECK_FALSE(std::filesystem::exists(path));
    CHECK_FALSE(listed(repo, path));
  }
  SUBCASE("the same commit twice, and a relative path") {
    auto a = Worktree::add(repo, first, path);
    auto b = Worktree::add(repo, first, std::filesystem::relative(dir / "arms/b").string());
    CHECK(b.path() == dir / "arms/b");
    CHECK(read_text(b.path() + "/a.txt") == "one\n");
  }
  SUBCASE("a worktree whose directory is gone or damaged is still cleaned up") {
    auto gone = Worktree::add(repo, first, path);
    std::filesystem::remove_all(path);
    gone.remove();
    CHECK_FALSE(listed(repo, path));
    auto damaged = Worktree::add(repo, first, dir / "arms/b");
    sh("echo 'gitdir: /nonexistent' > .git", damaged.path());
    damaged.remove();
    CHECK_FALSE(std::filesystem::exists(dir / "arms/b"));
    CHECK_FALSE(listed(repo, dir / "arms/b"));
  }
  SUBCASE("the destructor removes it, unless kept") {
    {
      auto removed = Worktree::add(repo, first, path);
      auto kept = Worktree::add(repo, first, dir / "arms/kept");
      kept.keep();
    }
    CHECK_FALSE(std::filesystem::exists(path));
    CHECK_FALSE(listed(repo, path));
    CHECK(read_text(dir / "arms/kept/a.txt") == "one\n");
    CHECK(listed(repo, dir / "arms/kept"));
  }
  SUBCASE("moves transfer ownership") {
    auto original = Worktree::add(repo, first, path);
    {
      Worktree moved = std::move(original);
      CHECK(moved.path() == path);
      original.remove(); // a moved-from worktree owns nothing
      CHECK(std::filesystem::exists(path));
    }
    CHECK_FALSE(std::filesystem::exists(path));
    auto second = Worktree::add(repo, first, dir / "arms/b");
    second = Worktree::add(repo, first, dir / "arms/c");
    CHECK_FALSE(std::filesystem::exists(dir / "arms/b"));
    CHECK(second.path() == dir / "arms/c");
    CHECK(std::filesystem::exists(dir / "arms/c/a.txt"));
  }
  SUBCASE("refusals leave other people's files alone") {
    CHECK(refusal_line([&] { Worktree::add(repo, "0123456789abcdef0123456789abcdef01234567", path); })
              .starts_with("refbench: error: cannot create the worktree of 0123456789abcdef0123456789abcdef01234567 "
                           "at " +
                           path + ": fatal:"));
    CHECK_FALSE(listed(repo, path));
    sh("mkdir -p arms/a && echo mine > arms/a/mine.txt", dir.path().string());
    CHECK(refusal_line([&] { Worktree::add(repo, first, path); }).find("already exists") != std::string::npos);
    CHECK(read_text(path + "/mine.txt") == "mine\n");
    CHECK(refusal_line([&] {
            Worktree::add(repo, "-b", dir / "arms/x");
          }).starts_with("refbench: error: cannot create a worktree of '-b'"));
  }
}

TEST_CASE("git::Worktree initialises submodules") {
  IsolatedGitEnvironment environment;
  TempDir dir;
  auto repo = create_history_repo(dir);
  add_nested_submodules(dir, repo);
  auto path = dir / "arms/a";
  auto head = run_git(repo, {"rev-parse", "HEAD"});

  auto worktree = Worktree::add(repo, head, path);
  CHECK(read_text(path + "/sub/s.txt") == "sub\n");
  CHECK(read_text(path + "/sub/inner/i.txt") == "inner\n");
  CHECK(run_git(path, {"submodule", "status", "--recursive"}).find('-') == std::string::npos);
  worktree.remove();
  CHECK_FALSE(std::filesystem::exists(path));
  CHECK_FALSE(listed(repo, path));
}

TEST_CASE("git::checkout_size_bytes") {
  IsolatedGitEnvironment environment;
  TempDir dir;
  auto repo = create_history_repo(dir);
  CHECK(checkout_size_bytes(repo, run_git(repo, {"rev-parse", "main~2"})) == 4);      // "one\n"
  CHECK(checkout_size_bytes(repo, run_git(repo, {"rev-parse", "main"})) == 6 + 1000); // "three\n", zeros
  CHECK(checkout_size_bytes(repo, run_git(repo, {"rev-parse", "feat/x"})) == 4 + 1000 + 2);
  SUBCASE("equals the bytes of a checkout") {
    auto sha = run_git(repo, {"rev-parse", "feat/x"});
    auto worktree = Worktree::add(repo, sha, dir / "arms/a");
    CHECK(checkout_size_bytes(repo, sha) == file_bytes(worktree.path()));
  }
  SUBCASE("submodules are not counted") {
    add_nested_submodules(dir, repo);
    auto gitmodules = std::filesystem::file_size(repo + "/.gitmodules");
    CHECK(checkout_size_bytes(repo, run_git(repo, {"rev-parse", "HEAD"})) == 6 + 1000 + gitmodules);
  }
  SUBCASE("an unknown commit throws GitError") {
    CHECK_THROWS_AS(checkout_size_bytes(repo, "0123456789abcdef0123456789abcdef01234567"), GitError);
  }
}
