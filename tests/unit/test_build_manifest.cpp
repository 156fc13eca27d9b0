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
