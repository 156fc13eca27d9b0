#include <doctest/doctest.h>

#include "scratch_dir.hpp"

#include <refbench/pipeline/run_arms.hpp>

#include <filesystem>
#include <fstream>
#include <memory>
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

TEST_CASE("pipeline::tree_check: a tree too large to walk every round is walked at most a tenth of the time") {
  test::ScratchDir dir;
  const std::filesystem::path tree = dir / "tree";
  std::filesystem::create_directories(tree);
  for (int i = 0; i < 3000; ++i) {
    std::ofstream(tree / ("f" + std::to_string(i))) << i;
  }
  const auto manifests = std::make_shared<const std::vector<build::TreeManifest>>(
      std::vector<build::TreeManifest>{build::TreeManifest::take(tree, "the baseline's tree", {})});
  const auto seconds = std::make_shared<double>(0.0);
  const auto check = pipeline::tree_check(manifests, seconds, 0.0); // no check is free here
  CHECK(check(0, false).empty());                                   // the warm-up's: always made
  const double one = *seconds;
  CHECK(one > 0);
  std::ofstream(tree / "f7") << "slower";
  // rounds that follow at once: walking again would take the checks past 10 % of the time, so they wait
  CHECK(check(1, false).empty());
  CHECK(check(2, false).empty());
  CHECK(*seconds == one);
  // the last is always made, and sees the change that stayed
  CHECK(check(3, true).find("the baseline's tree: f7") != std::string::npos);
  CHECK(*seconds > one);
}
