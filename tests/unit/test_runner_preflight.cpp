#include <doctest/doctest.h>

#include "scratch_dir.hpp"

#include <refbench/runner/preflight.hpp>
#include <refbench/util/error.hpp>

#include <atomic>
#include <filesystem>
#include <string>
#include <sys/stat.h>
#include <unistd.h>

using namespace refbench;
using namespace refbench::runner;
using namespace refbench::model;

namespace {

constexpr std::uint64_t k_kib = 1024;
constexpr std::uint64_t k_mib = k_kib << 10;
constexpr std::uint64_t k_gib = k_mib << 10;
constexpr std::uint64_t k_eib = k_gib << 30;

using refbench::test::ScratchDir;

bool same_filesystem(const std::string& a, const std::string& b) {
  struct stat sa {};
  struct stat sb {};
  return ::stat(a.c_str(), &sa) == 0 && ::stat(b.c_str(), &sb) == 0 && sa.st_dev == sb.st_dev;
}

// available_bytes(`path`) equals available_bytes(`reference`), retried while
// other processes change the free space between the readings.
bool same_available(const std::string& path, const std::string& reference) {
  for (int attempt = 0; attempt < 20; ++attempt) {
    std::uint64_t before = available_bytes(reference);
    std::uint64_t value = available_bytes(path);
    std::uint64_t after = available_bytes(reference);
    if (before == after) {
      return value == before;
    }
  }
  return false;
}

} // namespace

TEST_CASE("runner::preflight disk_needs") {
  SUBCASE("components of docs/manual/commands.md#refbench-run with their places and margins") {
    auto needs = disk_needs(100 * k_mib, 120 * k_mib, k_gib, {32 * k_mib, k_kib, k_mib, 32 * k_mib});
    REQUIRE(needs.size() == 9);
    auto check_need = [&](std::size_t i, const char* what, std::uint64_t bytes, DiskPlace place) {
      CAPTURE(i);
      CHECK(needs[i].what == what);
      CHECK(needs[i].bytes == bytes);
      CHECK(needs[i].place == place);
    };
    check_need(0, "baseline checkout", 104'857'600, DiskPlace::work);
    check_need(1, "candidate checkout", 125'829'120, DiskPlace::work);
    check_need(2, "build (build.disk)", 1'073'741'824, DiskPlace::work);
    check_need(3, "payload 1KiB", 1'024, DiskPlace::out);
    check_need(4, "payload 1MiB", 1'048'576, DiskPlace::out);
    check_need(5, "payload 32MiB", 33'554'432, DiskPlace::out); // listed twice, one file
    check_need(6, "outputs (2 × 32MiB)", 67'108'864, DiskPlace::out);
    // work: 1'304'428'544 / 10 = 130'442'854.4 → rounded up
    check_need(7, "margin (10 %)", 130'442'855, DiskPlace::work);
    // out: 101'712'896 / 10 = 10'171'289.6 → rounded up
    check_need(8, "margin (10 %)", 10'171'290, DiskPlace::out);
  }
  SUBCASE("no payloads: no outputs and no out margin") {
    auto needs = disk_needs(5, 0, 0, {});
    REQUIRE(needs.size() == 4);
    CHECK(needs[3].what == "margin (10 %)");
    CHECK(needs[3].bytes == 1);
    CHECK(needs[3].place == DiskPlace::work);
  }
  SUBCASE("huge numbers saturate instead of wrapping") {
    auto needs = disk_needs(UINT64_MAX, UINT64_MAX, 0, {UINT64_MAX});
    CHECK(needs.back().bytes == UINT64_MAX / 10 + 1);
    CHECK(needs[4].bytes == UINT64_MAX); // outputs
  }
}

TEST_CASE("runner::preflight available_bytes") {
  ScratchDir dir;
  CHECK(available_bytes("/") > 0);
  CHECK(same_available(dir.str() + "/not/yet/created", dir.str()));
  CHECK(same_available(dir.str() + "/not-yet/", dir.str()));
  CHECK(same_available("/refbench-no-such-dir/a/b", "/"));
  CHECK(same_available(".", std::filesystem::current_path().string()));
}

TEST_CASE("runner::preflight plan_disk and check_disk") {
  ScratchDir dir;
  const std::string out_dir = dir.str() + "/out";
  const std::string work_dir = dir.str() + "/out/arms";

  SUBCASE("one filesystem: one check, the margins merged") {
    auto needs = disk_needs(10, 20, 30, {40});
    auto checks = plan_disk(out_dir, work_dir, needs);
    REQUIRE(checks.size() == 1);
    CHECK(dir.str().starts_with(checks[0].filesystem_path));
    CHECK(checks[0].available > 0);
    REQUIRE(checks[0].needs.size() == 6);
    CHECK(checks[0].needs[5].what == "margin (10 %)");
    CHECK(checks[0].needs[5].bytes == 6 + 12); // ⌈60/10⌉ + ⌈120/10⌉
    CHECK(checks[0].needed() == 10 + 20 + 30 + 40 + 80 + 18);
  }
  SUBCASE("tiny needs pass") { CHECK_NOTHROW(check_disk(out_dir, work_dir, disk_needs(1, 1, 1, {1}))); }
  SUBCASE("1 EiB is refused with one line per component") {
    auto needs = disk_needs(k_kib, k_kib, k_eib, {k_mib});
    try {
      check_disk(out_dir, work_dir, needs);
      FAIL("expected RefusedError");
    } catch (const RefusedError& error) {
      std::string what = error.what();
      CHECK(what.starts_with("not enough disk space for this run: need 1.100 EiB, have "));
      CHECK(what.find('\n') == std::string::npos);
      CHECK(error.code() == ExitCode::refused);
      const std::string& hint = error.hint();
      CHECK(hint.find("point --out/--workdir at a larger filesystem") != std::string::npos);
      CHECK(hint.find("\n  baseline checkout ") != std::string::npos);
      CHECK(hint.find("\n  payload 1MiB ") != std::string::npos);
      CHECK(hint.find("\n  total needed 1.100 EiB, available ") != std::string::npos);
    }
  }
  SUBCASE("two filesystems split work and out") {
    // /proc is its own filesystem with nothing available.
    if (same_filesystem("/proc", dir.str())) {
      MESSAGE("skipped: /proc shares the temp directory's filesystem");
      return;
    }
    auto needs = disk_needs(10, 20, 30, {40});
    auto checks = plan_disk("/proc/refbench-out", work_dir, needs);
    REQUIRE(checks.size() == 2);
    CHECK(checks[0].needs.size() == 4);
    CHECK(checks[0].needed() == 66);
    CHECK(checks[1].filesystem_path == "/proc");
    CHECK(checks[1].available == 0);
    CHECK(checks[1].needs.size() == 3);
    CHECK(checks[1].needed() == 132);
    try {
      check_disk("/proc/refbench-out", work_dir, needs);
      FAIL("expected RefusedError");
    } catch (const RefusedError& error) {
      CHECK(std::string(error.what()) == "not enough disk space for this run: need 132 B, have 0 B on /proc");
      CHECK(error.hint().find("\n  total needed 132 B, available 0 B on /proc") != std::string::npos);
    }
    CHECK(low_on_disk("/proc"));
  }
}

TEST_CASE("runner::preflight format_disk_report") {
  std::vector<DiskCheck> checks{
      {"/work",
       300 * k_mib,
       {{"baseline checkout", 12 * k_mib + 512 * k_kib, DiskPlace::work},
        {"build (build.disk)", k_gib, DiskPlace::work},
        {"margin (10 %)", 500, DiskPlace::work}}},
      {"/tmp", 5 * k_gib, {{"outputs (2 × 32MiB)", 64 * k_mib, DiskPlace::out}}},
  };
  CHECK(format_disk_report(checks) == "  baseline checkout    12.50 MiB\n"
                                      "  build (build.disk)   1.000 GiB\n"
                                      "  margin (10 %)            500 B\n"
                                      "  total needed 1.012 GiB, available 300.0 MiB on /work\n"
                                      "  outputs (2 × 32MiB)   64.00 MiB\n"
                                      "  total needed 64.00 MiB, available 5.000 GiB on /tmp");
  CHECK(format_disk_report({}).empty());
}

TEST_CASE("runner::preflight format_disk_size and low_on_disk") {
  CHECK(format_disk_size(0) == "0 B");
  CHECK(format_disk_size(1023) == "1023 B");
  CHECK(format_disk_size(1024) == "1.000 KiB");
  CHECK(format_disk_size(1536) == "1.500 KiB");
  CHECK(format_disk_size(12 * k_mib + 512 * k_kib) == "12.50 MiB");
  CHECK(format_disk_size(300 * k_mib) == "300.0 MiB");
  CHECK(format_disk_size(k_eib) == "1.000 EiB");
  CHECK(format_disk_size(UINT64_MAX) == "16.00 EiB");
  CHECK(low_on_disk("/") == (available_bytes("/") < k_low_disk_bytes));
}
