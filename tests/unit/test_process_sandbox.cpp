#include <doctest/doctest.h>

#include <refbench/process/launcher.hpp>
#include <refbench/process/sandbox.hpp>
#include <refbench/util/files.hpp>

#include "scratch_dir.hpp"
#include "shell_invocation.hpp"

#include <filesystem>
#include <string>

using namespace refbench::process;
using namespace refbench::model;
using refbench::test::sh;

TEST_CASE("process::encode_box_paths: read-only then writable paths, absolute ones only") {
  BoxPaths paths{{"/o", "/usr/bin/refbench"}, {"/o/outputs"}};
  BoxPaths back;
  REQUIRE(decode_box_paths(encode_box_paths(paths), back));
  CHECK(back.read_only == paths.read_only);
  CHECK(back.writable == paths.writable);
  CHECK_FALSE(decode_box_paths("r relative/path\n", back));
  CHECK_FALSE(decode_box_paths("w \n", back));
  CHECK(decode_box_paths("", back));
  CHECK(back.read_only.empty());
}

TEST_CASE("process::Launcher::box: what a boxed command can reach") {
  if (const auto refusal = box_refusal(); !refusal.empty()) {
    MESSAGE("skipped: " << refusal);
    return;
  }
  refbench::test::ScratchDir dir;
  std::filesystem::create_directories(dir.path() / "out/outputs");
  refbench::test::write_file(dir.path() / "out/journal.jsonl", "{}\n");
  auto launcher = Launcher::start();
  const auto floor = launcher->rss_probe().floor_bytes;
  const auto state = launcher->box({{dir / "out"}, {dir / "out/outputs"}});
  REQUIRE(state.mode.ends_with("namespaces"));
  CHECK(state.reason.empty());
  CHECK(launcher->rss_probe().floor_bytes > 0); // measured again in the box
  CHECK(launcher->rss_probe().floor_bytes < floor + (16ll << 20));

  SUBCASE("read-only but for the writable paths under them") {
    CHECK(launcher->run(sh("echo x > " + dir / "out/journal.jsonl")).exit_code != 0);
    CHECK(launcher->run(sh("ln -sfn /tmp " + dir / "out/a")).exit_code != 0);
    CHECK(succeeded(launcher->run(sh("echo x > " + dir / "out/outputs/cell.out"))));
    CHECK(refbench::util::read_file(dir / "out/journal.jsonl").value_or("") == "{}\n");
    CHECK(std::filesystem::exists(dir.path() / "out/outputs/cell.out"));
  }
  SUBCASE("process 1 is the launcher, refbench is not there, and /proc shows the box alone") {
    auto listed = sh("echo $PPID; ls /proc | grep -c '^[0-9]'");
    listed.capture_stdout = true;
    const auto outcome = launcher->run(listed);
    REQUIRE(succeeded(outcome));
    CHECK(outcome.stdout_text.starts_with("1\n"));
    CHECK(std::stoi(outcome.stdout_text.substr(2)) <= 4); // the launcher, sh, ls, grep
  }
  SUBCASE("no signal from inside reaches the launcher") {
    CHECK(succeeded(launcher->run(sh("kill -KILL 1; kill -STOP 1; true"))));
    CHECK(succeeded(launcher->run(sh("true"))));
  }
}
