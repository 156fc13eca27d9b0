#include <doctest/doctest.h>

#include "scratch_dir.hpp"

#include <refbench/build/manifest.hpp>
#include <refbench/util/error.hpp>

#include <fcntl.h>
#include <filesystem>
#include <fstream>
#include <sys/stat.h>

using namespace refbench;
using build::TreeManifest;

namespace {

namespace fs = std::filesystem;

// Sets `path`'s modification time back to what `info` recorded.
void restore_mtime(const fs::path& path, const struct stat& info) {
  const timespec times[2] = {info.st_atim, info.st_mtim};
  REQUIRE(::utimensat(AT_FDCWD, path.c_str(), times, AT_SYMLINK_NOFOLLOW) == 0);
}

} // namespace

TEST_CASE("build::TreeManifest: an untouched tree has no changes, quick or rehashed") {
  test::ScratchDir dir;
  test::write_file(dir.path() / "bin/work", "#!/bin/sh\nsleep 0.1\n");
  test::write_file(dir.path() / "lib/data.txt", "abc");
  fs::create_symlink("data.txt", dir.path() / "lib/link");
  const auto manifest = TreeManifest::take(dir.path(), "the baseline's tree", {});
  CHECK(manifest.files() == 2);
  CHECK(manifest.bytes() == 20 + 3);
  CHECK(manifest.changes(false).empty());
  CHECK(manifest.changes(true).empty());
}

TEST_CASE("build::TreeManifest: every kind of change is named") {
  test::ScratchDir dir;
  const auto root = dir.path();
  test::write_file(root / "bin/work", "#!/bin/sh\nsleep 0.1\n");
  test::write_file(root / "keep", "k");
  test::write_file(root / "gone", "g");
  test::write_file(root / "run.sh", "true");
  fs::create_symlink("keep", root / "link");
  const auto manifest = TreeManifest::take(root, "t", {});

  SUBCASE("same size, mtime set back: the change time still shows it; rehashing names the content") {
    struct stat before {};
    REQUIRE(::lstat((root / "bin/work").c_str(), &before) == 0);
    test::write_file(root / "bin/work", "#!/bin/sh\nsleep 0.5\n"); // same length
    restore_mtime(root / "bin/work", before);
    CHECK(manifest.changes(false) == std::vector<std::string>{"bin/work (modified)"});
    CHECK(manifest.changes(true) == std::vector<std::string>{"bin/work (content)"});
  }
  SUBCASE("a change undone between two checks still shows (the change time moved)") {
    test::write_file(root / "keep", "x");
    test::write_file(root / "keep", "k");
    CHECK(manifest.changes(false) == std::vector<std::string>{"keep (modified)"});
  }
  SUBCASE("size, added, removed, mode, link target, replaced") {
    test::write_file(root / "bin/work", "#!/bin/sh\nsleep 10\n");
    test::write_file(root / "bin/libshadow.so", "x");
    fs::remove(root / "gone");
    fs::permissions(root / "run.sh", fs::perms::all);
    fs::remove(root / "link");
    fs::create_symlink("gone", root / "link");
    const auto changes = manifest.changes(false);
    CHECK(changes == std::vector<std::string>{"bin/libshadow.so (added)", "bin/work (size 20 → 19 bytes)",
                                              "gone (removed)", "link (link target)", "run.sh (mode 644 → 777)"});
  }
  SUBCASE("a file replaced by a directory") {
    fs::remove(root / "keep");
    fs::create_directory(root / "keep");
    CHECK(manifest.changes(false) == std::vector<std::string>{"keep (replaced)"});
  }
}

TEST_CASE("build::TreeManifest: the root's .git and the writable globs are left out") {
  test::ScratchDir dir;
  const auto root = dir.path();
  test::write_file(root / ".git", "gitdir: /elsewhere\n");
  test::write_file(root / "src/.git", "nested: checked\n");
  test::write_file(root / "pkg/__pycache__/m.pyc", "1");
  const auto manifest = TreeManifest::take(root, "t", {"*/__pycache__", "*.log"});
  test::write_file(root / ".git", "gitdir: /moved\n");
  test::write_file(root / "pkg/__pycache__/m.pyc", "22");
  test::write_file(root / "pkg/__pycache__/n.pyc", "3");
  test::write_file(root / "deep/run.log", "log");
  CHECK(manifest.changes(true) == std::vector<std::string>{"deep (added)"});
  test::write_file(root / "src/.git", "nested: changed\n");
  CHECK(manifest.changes(true).size() == 2);
  CHECK(build::matches_writable("a/b/__pycache__", {"*/__pycache__"}));
  CHECK_FALSE(build::matches_writable("bin/work", {"*/__pycache__"}));
}

TEST_CASE("build::is_program: an execute bit, a #! line or an ELF header") {
  test::ScratchDir dir;
  const auto root = dir.path();
  test::write_file(root / "script", "#!/bin/sh\n");
  test::write_file(root / "object", std::string("\x7f"
                                                "ELF\x02\x01",
                                                6));
  test::write_file(root / "tool", "data");
  fs::permissions(root / "tool", fs::perms::owner_exec, fs::perm_options::add);
  test::write_file(root / "data.py", "print(1)\n");
  test::write_file(root / "short", "#");
  fs::create_symlink(root / "script", root / "link");
  CHECK(build::is_program(root / "script"));
  CHECK(build::is_program(root / "object"));
  CHECK(build::is_program(root / "tool"));
  CHECK_FALSE(build::is_program(root / "data.py"));
  CHECK_FALSE(build::is_program(root / "short"));
  CHECK_FALSE(build::is_program(root / "link")); // the link itself; its target is checked where it is
  CHECK_FALSE(build::is_program(root));
}

TEST_CASE("build::TreeManifest: no writable glob exempts a program, \"*\" included") {
  test::ScratchDir dir;
  const auto root = dir.path();
  test::write_file(root / "work", "#!/bin/sh\nsleep 0.02\n");
  test::write_file(root / "lib/libx.so", std::string("\x7f"
                                                     "ELF\x02\x01\x01",
                                                     7));
  test::write_file(root / "cache/count", "0\n");
  test::write_file(root / "cache/deep/tool", "#!/bin/sh\n");
  const auto manifest = TreeManifest::take(root, "t", {"*"});
  CHECK(manifest.exempt() == 4); // cache, cache/count, cache/deep, lib
  CHECK(manifest.entries() == 3);
  test::write_file(root / "cache/count", "1\n");     // the tree's own business
  test::write_file(root / "cache/new.txt", "new\n"); // so is a new file
  CHECK(manifest.changes(true).empty());
  test::write_file(root / "work", "#!/bin/sh\nsleep 0.2\n");
  test::write_file(root / "cache/deep/tool", "#!/bin/sh\nexit 1\n");
  test::write_file(root / "cache/dropped", "#!/bin/sh\n"); // a new program is an addition
  CHECK(manifest.changes(true) == std::vector<std::string>{"cache/deep/tool (size 10 → 17 bytes)",
                                                           "cache/dropped (added)", "work (size 21 → 20 bytes)"});
  fs::remove(root / "lib/libx.so");
  CHECK(manifest.changes(false).front() == "cache/deep/tool (size 10 → 17 bytes)");
  CHECK(manifest.changes(false).size() == 4);
}

TEST_CASE("build::TreeManifest: a writable directory is left out with what it holds") {
  test::ScratchDir dir;
  const auto root = dir.path();
  test::write_file(root / "target/criterion/a/estimates.json", "{}");
  test::write_file(root / "target/release/bench", "#!/bin/sh\n");
  const auto manifest = TreeManifest::take(root, "t", {"target/criterion"});
  test::write_file(root / "target/criterion/a/estimates.json", "{\"mean\": 1}");
  test::write_file(root / "target/criterion/b/new.json", "{}");
  CHECK(manifest.changes(true).empty());
  test::write_file(root / "target/release/bench", "#!/bin/sh\nexit 0\n");
  CHECK(manifest.changes(true) == std::vector<std::string>{"target/release/bench (size 10 → 17 bytes)"});
}

TEST_CASE("build::TreeManifest: a root that is not a directory is refused") {
  test::ScratchDir dir;
  test::write_file(dir.path() / "file", "x");
  fs::create_symlink(dir.path(), dir.path() / "link");
  CHECK_THROWS_AS(TreeManifest::take(dir.path() / "file", "t", {}), RefusedError);
  CHECK_THROWS_AS(TreeManifest::take(dir.path() / "link", "t", {}), RefusedError);
}

TEST_CASE("build::summarize_changes: the first few, then how many more") {
  CHECK(build::summarize_changes({"a (added)"}) == "a (added)");
  CHECK(build::summarize_changes({"a", "b", "c"}, 2) == "a, b and 1 more");
}
