#include <refbench/runner/payloads.hpp>
#include <refbench/runner/preflight.hpp>
#include <refbench/util/error.hpp>

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fmt/format.h>
#include <limits>
#include <sys/stat.h>
#include <sys/statvfs.h>

namespace refbench::runner {
namespace {

std::uint64_t add_saturating(std::uint64_t a, std::uint64_t b) {
  return a > std::numeric_limits<std::uint64_t>::max() - b ? std::numeric_limits<std::uint64_t>::max() : a + b;
}

// 10 % of `bytes`, rounded up.
std::uint64_t margin_of(std::uint64_t bytes) { return bytes / 10 + (bytes % 10 != 0 ? 1 : 0); }

[[noreturn]] void refuse_unreadable(const std::string& path, int error_number) {
  throw RefusedError("cannot read the free disk space of " + path + ": " + std::strerror(error_number),
                     "check that --out and --workdir are accessible");
}

// `path` made absolute, or its nearest existing ancestor when it does not
// exist yet (the out and work directories are created later); fills `status`.
std::filesystem::path nearest_existing(const std::string& path, struct stat& status) {
  std::error_code error;
  std::filesystem::path current = std::filesystem::absolute(path.empty() ? "." : path, error);
  if (error) {
    refuse_unreadable(path, error.value());
  }
  current = current.lexically_normal();
  if (!current.has_filename() && current != current.root_path()) {
    current = current.parent_path(); // "/a/b/" → "/a/b"
  }
  for (;;) {
    if (::stat(current.c_str(), &status) == 0) {
      return current;
    }
    if ((errno != ENOENT && errno != ENOTDIR) || current == current.root_path()) {
      refuse_unreadable(path, errno);
    }
    current = current.parent_path();
  }
}

// The mount point of the filesystem holding the existing `path` (device `device`).
std::string mount_point(std::filesystem::path path, dev_t device) {
  while (path != path.root_path()) {
    struct stat status {};
    std::filesystem::path parent = path.parent_path();
    if (::stat(parent.c_str(), &status) != 0 || status.st_dev != device) {
      break;
    }
    path = std::move(parent);
  }
  return path.string();
}

// Width of `text` in columns, counting each UTF-8 code point once ("×").
std::size_t columns(std::string_view text) {
  return static_cast<std::size_t>(
      std::count_if(text.begin(), text.end(), [](char c) { return (static_cast<unsigned char>(c) & 0xc0) != 0x80; }));
}

// Four significant digits: 1.234, 12.34, 123.4, 1234 (as report::format_bytes,
// which runner may not include).
std::string four_digits(double value) {
  int decimals = value >= 1000 ? 0 : value >= 100 ? 1 : value >= 10 ? 2 : 3;
  return fmt::format("{:.{}f}", value, decimals);
}

} // namespace

std::uint64_t DiskCheck::needed() const {
  std::uint64_t total = 0;
  for (const auto& need : needs) {
    total = add_saturating(total, need.bytes);
  }
  return total;
}

std::vector<DiskNeed> disk_needs(std::uint64_t baseline_checkout, std::uint64_t candidate_checkout,
                                 std::uint64_t build_disk, const std::vector<std::uint64_t>& payload_sizes,
                                 int replicas) {
  std::vector<DiskNeed> needs{
      {"baseline checkout", baseline_checkout, DiskPlace::work},
      {"candidate checkout", candidate_checkout, DiskPlace::work},
      {"build (build.disk)", build_disk, DiskPlace::work},
  };
  if (replicas > 1) { // copies of the checkouts; what the build adds is checked once it is there
    const auto copies = static_cast<std::uint64_t>(replicas - 1);
    needs.push_back({fmt::format("replicas ({} × both checkouts)", copies),
                     add_saturating(baseline_checkout, candidate_checkout) * copies, DiskPlace::work});
  }
  // Equal sizes share one cached file.
  std::vector<std::uint64_t> sizes = payload_sizes;
  std::sort(sizes.begin(), sizes.end());
  sizes.erase(std::unique(sizes.begin(), sizes.end()), sizes.end());
  for (std::uint64_t size : sizes) {
    needs.push_back({"payload " + size_label(size), size, DiskPlace::out});
  }
  if (!sizes.empty()) {
    needs.push_back(
        {"outputs (2 × " + size_label(sizes.back()) + ")", add_saturating(sizes.back(), sizes.back()), DiskPlace::out});
  }

  for (DiskPlace place : {DiskPlace::work, DiskPlace::out}) {
    std::uint64_t sum = 0;
    bool any = false;
    for (const auto& need : needs) {
      if (need.place == place) {
        sum = add_saturating(sum, need.bytes);
        any = true;
      }
    }
    if (any) {
      needs.push_back({std::string(k_margin_label), margin_of(sum), place});
    }
  }
  return needs;
}

std::uint64_t available_bytes(const std::string& path) {
  struct stat status {};
  std::filesystem::path existing = nearest_existing(path, status);
  struct statvfs space {};
  if (::statvfs(existing.c_str(), &space) != 0) {
    refuse_unreadable(path, errno);
  }
  const auto blocks = static_cast<std::uint64_t>(space.f_bavail);
  const auto block_size = static_cast<std::uint64_t>(space.f_frsize);
  if (block_size != 0 && blocks > std::numeric_limits<std::uint64_t>::max() / block_size) {
    return std::numeric_limits<std::uint64_t>::max();
  }
  return blocks * block_size;
}

std::vector<DiskCheck> plan_disk(const std::string& out_dir, const std::string& work_dir,
                                 const std::vector<DiskNeed>& needs) {
  struct stat work_status {};
  struct stat out_status {};
  std::filesystem::path work_existing = nearest_existing(work_dir, work_status);
  std::filesystem::path out_existing = nearest_existing(out_dir, out_status);

  std::vector<DiskCheck> checks;
  if (work_status.st_dev == out_status.st_dev) {
    DiskCheck check{mount_point(work_existing, work_status.st_dev), available_bytes(work_dir), {}};
    for (const auto& need : needs) {
      auto same = std::find_if(check.needs.begin(), check.needs.end(),
                               [&](const DiskNeed& seen) { return seen.what == need.what; });
      if (same != check.needs.end()) {
        same->bytes = add_saturating(same->bytes, need.bytes);
      } else {
        check.needs.push_back(need);
      }
    }
    checks.push_back(std::move(check));
  } else {
    checks.push_back({mount_point(work_existing, work_status.st_dev), available_bytes(work_dir), {}});
    checks.push_back({mount_point(out_existing, out_status.st_dev), available_bytes(out_dir), {}});
    for (const auto& need : needs) {
      checks[need.place == DiskPlace::work ? 0 : 1].needs.push_back(need);
    }
  }
  std::erase_if(checks, [](const DiskCheck& check) { return check.needs.empty(); });
  return checks;
}

std::string format_disk_report(const std::vector<DiskCheck>& checks) {
  std::string report;
  for (const auto& check : checks) {
    std::size_t width = 0;
    for (const auto& need : check.needs) {
      width = std::max(width, columns(need.what));
    }
    for (const auto& need : check.needs) {
      report += fmt::format("  {}{}  {:>10}\n", need.what, std::string(width - columns(need.what), ' '),
                            format_disk_size(need.bytes));
    }
    report += fmt::format("  total needed {}, available {} on {}\n", format_disk_size(check.needed()),
                          format_disk_size(check.available), check.filesystem_path);
  }
  if (!report.empty()) {
    report.pop_back();
  }
  return report;
}

void check_disk(const std::string& out_dir, const std::string& work_dir, const std::vector<DiskNeed>& needs) {
  std::vector<DiskCheck> checks = plan_disk(out_dir, work_dir, needs);
  for (const auto& check : checks) {
    if (check.needed() > check.available) {
      throw RefusedError(fmt::format("not enough disk space for this run: need {}, have {} on {}",
                                     format_disk_size(check.needed()), format_disk_size(check.available),
                                     check.filesystem_path),
                         fmt::format("free at least {} on {} or point --out/--workdir at a larger filesystem; "
                                     "needed vs available:\n{}",
                                     format_disk_size(check.needed() - check.available), check.filesystem_path,
                                     format_disk_report(checks)));
    }
  }
}

bool low_on_disk(const std::string& path) {
  try {
    return available_bytes(path) < k_low_disk_bytes;
  } catch (const RefusedError&) {
    return false;
  }
}

std::string format_disk_size(std::uint64_t bytes) {
  static constexpr std::array<const char*, 7> k_units{"B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
  if (bytes < 1024) {
    return fmt::format("{} B", bytes);
  }
  auto value = static_cast<double>(bytes);
  std::size_t unit = 0;
  while (unit + 1 < k_units.size() && value >= 1024.0) {
    value /= 1024.0;
    ++unit;
  }
  return four_digits(value) + " " + k_units[unit];
}

} // namespace refbench::runner
