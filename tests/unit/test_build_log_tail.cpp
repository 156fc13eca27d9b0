#include <doctest/doctest.h>

#include <refbench/build/build.hpp>

#include "scratch_dir.hpp"

#include <cstdio>
#include <fmt/format.h>
#include <fstream>
#include <string>
#include <unistd.h>

using namespace refbench;

namespace {

// Bytes this process has read so far (rchar of /proc/self/io).
long long bytes_read() {
  std::ifstream io("/proc/self/io");
  std::string name;
  long long value = 0;
  while (io >> name >> value) {
    if (name == "rchar:") {
      return value;
    }
  }
  return -1;
}

void write_file(const std::string& path, const std::string& text) { std::ofstream(path, std::ios::binary) << text; }

} // namespace

TEST_CASE("build::log_tail reads the last lines from the end of the log") {
  test::ScratchDir dir;
  const std::string path = dir / "build.log";

  SUBCASE("a 100 MB log is not read whole") {
    {
      std::ofstream log(path, std::ios::binary);
      const std::string block(1 << 20, 'a');
      for (int i = 0; i < 100; ++i) {
        log << block;
      }
      log << "\n";
      for (int i = 1; i <= 50; ++i) {
        log << "line " << i << "\n";
      }
    }
    const long long before = bytes_read();
    const std::string tail = build::log_tail(path, 3);
    const long long read = bytes_read() - before;
    CHECK(tail == "line 48\nline 49\nline 50");
    CHECK(read < (1 << 20));
  }
  SUBCASE("no trailing newline") {
    write_file(path, "one\ntwo\nthree");
    CHECK(build::log_tail(path, 2) == "two\nthree");
    CHECK(build::log_tail(path, 5) == "one\ntwo\nthree");
  }
  SUBCASE("empty and missing logs") {
    write_file(path, "");
    CHECK(build::log_tail(path, 40) == "");
    CHECK(build::log_tail(dir / "missing.log", 40) == "");
  }
  SUBCASE("lines across read blocks") {
    std::string text;
    for (int i = 0; i < 2000; ++i) {
      text += fmt::format("compiling unit {:04}\n", i);
    }
    write_file(path, text);
    CHECK(build::log_tail(path, 2) == "compiling unit 1998\ncompiling unit 1999");
    const std::string forty = build::log_tail(path, 40);
    CHECK(forty.starts_with("compiling unit 1960\n"));
    CHECK(std::count(forty.begin(), forty.end(), '\n') == 39);
  }
  SUBCASE("a single huge line is cut to the bound, keeping its end") {
    write_file(path, "start\n" + std::string(10 << 20, 'y') + "END\n");
    const std::string tail = build::log_tail(path, 40);
    CHECK(tail.size() <= build::k_build_log_tail_bytes + 3);
    CHECK(tail.starts_with("…y"));
    CHECK(tail.ends_with("yEND"));
  }
}
