#include <refbench/process/footprint.hpp>
#include <refbench/util/fd.hpp>

#include <array>
#include <cstdio>
#include <fcntl.h>
#include <string_view>
#include <sys/mman.h>
#include <unistd.h>

namespace refbench::process {
namespace {

// Whether the /proc/self/pagemap entry `entry` is a page this process
// wrote, its own copy and not the file's: swapped out (bit 62), or present
// (bit 63) and not a page of the file (bit 61).
bool private_copy(std::uint64_t entry) {
  const bool present = (entry >> 63 & 1) != 0;
  const bool swapped = (entry >> 62 & 1) != 0;
  const bool of_the_file = (entry >> 61 & 1) != 0;
  return swapped || (present && !of_the_file);
}

// Adds to `into` the pages of the mapping [start, end) that this process did
// not write; none when `pagemap` cannot tell which it wrote.
void add_unwritten(int pagemap, unsigned long start, unsigned long end, PageRanges& into) {
  const auto page = static_cast<std::uintptr_t>(::sysconf(_SC_PAGESIZE));
  std::vector<std::uint64_t> entries((end - start) / page, 0);
  const auto bytes = static_cast<long>(entries.size() * sizeof(std::uint64_t));
  if (pagemap < 0 || ::pread(pagemap, entries.data(), static_cast<std::size_t>(bytes),
                             static_cast<off_t>(start / page * sizeof(std::uint64_t))) != bytes) {
    return;
  }
  std::uintptr_t from = start;
  for (std::size_t i = 0; i <= entries.size(); ++i) {
    const std::uintptr_t at = start + i * page;
    if (i == entries.size() || private_copy(entries[i])) {
      if (at > from) {
        into.emplace_back(from, at);
      }
      from = at + page;
    }
  }
}

} // namespace

ReleasablePages releasable_pages() {
  ReleasablePages pages;
  std::FILE* maps = std::fopen("/proc/self/maps", "re");
  if (maps == nullptr) {
    return pages;
  }
  const util::Fd pagemap(::open("/proc/self/pagemap", O_RDONLY | O_CLOEXEC));
  std::array<char, 512> line{};
  while (std::fgets(line.data(), static_cast<int>(line.size()), maps) != nullptr) {
    unsigned long start = 0;
    unsigned long end = 0;
    std::array<char, 5> perms{};
    int path_at = 0;
    if (std::sscanf(line.data(), "%lx-%lx %4s %*s %*s %*s %n", &start, &end, perms.data(), &path_at) < 3 ||
        line[static_cast<std::size_t>(path_at)] != '/') {
      continue;
    }
    const std::string_view mode(perms.data());
    if (mode == "r-xp" || mode == "r--p") {
      add_unwritten(pagemap.get(), start, end, mode == "r-xp" ? pages.text : pages.data);
    }
  }
  std::fclose(maps);
  return pages;
}

void release(const PageRanges& ranges) {
  for (const auto& [start, end] : ranges) {
    ::madvise(reinterpret_cast<void*>(start), end - start, MADV_DONTNEED);
  }
}

void reset_peak_rss() {
  if (const int fd = ::open("/proc/self/clear_refs", O_WRONLY | O_CLOEXEC); fd >= 0) {
    [[maybe_unused]] const auto written = ::write(fd, "5", 1);
    ::close(fd);
  }
}

} // namespace refbench::process
