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
  const bool is_present = (entry >> 63 & 1) != 0;
  const bool swapped = (entry >> 62 & 1) != 0;
  const bool file_page = (entry >> 61 & 1) != 0;
  return swapped || (is_present && !file_page);
}

// Whether the pagemap entry `entry` is a page this process has mapped (bit 63).
bool present(std::uint64_t entry) { return (entry >> 63 & 1) != 0; }

// Whether the pagemap entry `entry` is the file's page, not one this process wrote.
bool of_the_file(std::uint64_t entry) { return !private_copy(entry); }

// The /proc/self/pagemap entries of the pages [start, end) in `pagemap`;
// empty when it cannot be read.
std::vector<std::uint64_t> pagemap_entries(int pagemap, std::uintptr_t start, std::uintptr_t end) {
  const auto page = static_cast<std::uintptr_t>(::sysconf(_SC_PAGESIZE));
  std::vector<std::uint64_t> entries((end - start) / page, 0);
  const auto bytes = static_cast<long>(entries.size() * sizeof(std::uint64_t));
  if (pagemap < 0 || ::pread(pagemap, entries.data(), static_cast<std::size_t>(bytes),
                             static_cast<off_t>(start / page * sizeof(std::uint64_t))) != bytes) {
    entries.clear();
  }
  return entries;
}

// Adds to `into` the pages of [start, end) whose pagemap entry `keep`
// accepts, as ranges; none when `pagemap` cannot be read.
void add_pages(int pagemap, std::uintptr_t start, std::uintptr_t end, bool (*keep)(std::uint64_t), PageRanges& into) {
  const auto page = static_cast<std::uintptr_t>(::sysconf(_SC_PAGESIZE));
  const auto entries = pagemap_entries(pagemap, start, end);
  std::uintptr_t from = start;
  for (std::size_t i = 0; i <= entries.size(); ++i) {
    const std::uintptr_t at = start + i * page;
    if (i == entries.size() || !keep(entries[i])) {
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
      add_pages(pagemap.get(), start, end, of_the_file, mode == "r-xp" ? pages.text : pages.data);
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

PageRanges mapped_pages(const PageRanges& ranges) {
  PageRanges mapped;
  const util::Fd pagemap(::open("/proc/self/pagemap", O_RDONLY | O_CLOEXEC));
  for (const auto& [start, end] : ranges) {
    add_pages(pagemap.get(), start, end, present, mapped);
  }
  return mapped;
}

void map_back(const PageRanges& ranges) {
  const auto page = static_cast<std::uintptr_t>(::sysconf(_SC_PAGESIZE));
  for (const auto& [start, end] : ranges) {
    for (std::uintptr_t at = start; at < end; at += page) {
      static_cast<void>(*reinterpret_cast<const volatile char*>(at));
    }
  }
}

void reset_peak_rss() {
  if (const int fd = ::open("/proc/self/clear_refs", O_WRONLY | O_CLOEXEC); fd >= 0) {
    [[maybe_unused]] const auto written = ::write(fd, "5", 1);
    ::close(fd);
  }
}

} // namespace refbench::process
