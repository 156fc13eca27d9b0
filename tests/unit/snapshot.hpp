#pragma once
// Snapshot files under tests/unit/snapshots/: exact expected output,
// rewritten by running the tests with REFBENCH_UPDATE_SNAPSHOTS=1.

#include <doctest/doctest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>

namespace refbench::test {

inline std::string read_text(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

// Compares `text` byte for byte with snapshots/`name`, or rewrites it when
// REFBENCH_UPDATE_SNAPSHOTS=1.
inline void check_snapshot(const std::string& name, const std::string& text) {
  const std::filesystem::path path = std::filesystem::path(REFBENCH_SNAPSHOT_DIR) / name;
  if (const char* update = std::getenv("REFBENCH_UPDATE_SNAPSHOTS"); update != nullptr && std::string(update) == "1") {
    std::filesystem::create_directories(path.parent_path());
    std::ofstream(path, std::ios::binary) << text;
    return;
  }
  REQUIRE_MESSAGE(std::filesystem::exists(path), path.string() << " is missing: run with REFBENCH_UPDATE_SNAPSHOTS=1");
  const std::string expected = read_text(path);
  std::size_t at = 0;
  while (at < text.size() && at < expected.size() && text[at] == expected[at]) {
    ++at;
  }
  const std::size_t line_start = text.rfind('\n', at == 0 ? 0 : at - 1);
  CHECK_MESSAGE(text == expected, name << " differs from byte " << at << ", line: "
                                       << text.substr(line_start == std::string::npos ? 0 : line_start + 1, 200));
}

} // namespace refbench::test
