#include <doctest/doctest.h>

#include "scratch_dir.hpp"

#include <refbench/pipeline/run_arms.hpp>

#include <filesystem>
#include <string>
#include <vector>

using namespace refbench;
namespace fs = std::filesystem;

TEST_CASE("pipeline::Arms::moved_links: a link re-pointed, replaced or removed, or <work> replaced") {
  test::ScratchDir dir;
  const auto base = dir / "base";
  const auto head = dir / "head";
  fs::create_directories(base);
  fs::create_directories(head);
  const fs::path work = dir / "arms";
  pipeline::Arms arms(work, {base, head});
  CHECK(arms.moved_links().empty());
  CHECK(fs::read_symlink(work / "a") == base);

  SUBCASE("re-pointed, by an absolute or a relative target") {
    fs::create_directories(dir / "copy");
    fs::remove(work / "a");
    fs::create_directory_symlink(dir / "copy", work / "a");
    CHECK(arms.moved_links() ==
          "the link " + (work / "a").string() + " (re-pointed to " + dir / "copy" + ", not " + base + ")");
    fs::remove(work / "a");
    fs::create_directory_symlink("../copy", work / "a");
    CHECK(arms.moved_links() == "the link " + (work / "a").string() + " (re-pointed to ../copy, not " + base + ")");
  }
  SUBCASE("replaced by a directory, or removed") {
    fs::remove(work / "b");
    fs::create_directories(work / "b");
    fs::remove(work / "c");
    CHECK(arms.moved_links() == "the link " + (work / "c").string() + " (replaced or removed); the link " +
                                    (work / "b").string() + " (replaced or removed)"); // in the order they were made
  }
  SUBCASE("<work> itself moved away and made again with links of the same targets") {
    fs::rename(work, dir / "old-arms");
    fs::create_directories(work);
    for (const auto& [name, target] : {std::pair{"a", base}, std::pair{"b", head}, std::pair{"c", base}}) {
      fs::create_directory_symlink(target, work / name);
    }
    CHECK(arms.moved_links() == work.string() + " (replaced: the arms' links are refbench's)");
  }
  SUBCASE("a placement refbench made itself is no move") {
    arms.place({0, 0, 0}, {std::vector{head}, std::vector{base}});
    CHECK(fs::read_symlink(work / "a") == head);
    CHECK(arms.moved_links().empty());
  }
}
