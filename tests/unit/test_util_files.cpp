#include <doctest/doctest.h>

#include <refbench/util/files.hpp>

#include <filesystem>
#include <fstream>
#include <unistd.h>

using namespace refbench::util;
namespace fs = std::filesystem;

namespace {

std::string content(const fs::path& path) { return read_file(path).value_or("<unreadable>"); }

struct Dir {
  fs::path path;
  Dir() {
    std::string templ = (fs::temp_directory_path() / "refbench-files.XXXXXX").string();
    path = ::mkdtemp(templ.data());
  }
  ~Dir() { fs::remove_all(path); }
};

} // namespace

TEST_CASE("util::write_file_atomically never writes through a planted symlink") {
  Dir dir;
  std::ofstream(dir.path / "victim") << "precious";
  fs::create_symlink(dir.path / "victim", dir.path / "report.md");
  fs::create_symlink(dir.path / "victim", dir.path / "report.md.tmp");
  REQUIRE(write_file_atomically(dir.path / "report.md", "new report"));
  CHECK(content(dir.path / "victim") == "precious");
  CHECK_FALSE(fs::is_symlink(dir.path / "report.md"));
  CHECK(content(dir.path / "report.md") == "new report");
  std::size_t files = 0;
  for ([[maybe_unused]] const auto& entry : fs::directory_iterator(dir.path)) {
    ++files;
  }
  CHECK(files == 3); // victim, report.md, the planted .tmp link: no temporary left behind
}

TEST_CASE("util::create_fresh_file replaces a planted symlink or hard link") {
  Dir dir;
  std::ofstream(dir.path / "victim") << "precious";
  fs::create_symlink(dir.path / "victim", dir.path / "journal.jsonl");
  fs::create_hard_link(dir.path / "victim", dir.path / "log");
  for (const char* name : {"journal.jsonl", "log"}) {
    Fd fd = create_fresh_file(dir.path / name);
    REQUIRE(fd.valid());
    REQUIRE(write_all(fd.get(), "x", 1));
  }
  CHECK(content(dir.path / "victim") == "precious");
  CHECK(content(dir.path / "journal.jsonl") == "x");
  CHECK(content(dir.path / "log") == "x");
}
