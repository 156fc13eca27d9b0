#pragma once
// Disk preflight (docs/manual/commands.md#refbench-run): what a run will write, where, and whether the
// filesystems it lands on have room for it.

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace refbench::runner {

// Free space under which a failed invocation is reported as "out of disk
// space" rather than as a broken program.
inline constexpr std::uint64_t k_low_disk_bytes = std::uint64_t{64} << 20;

// The name of the safety-margin lines of disk_needs.
inline constexpr std::string_view k_margin_label = "margin (10 %)";

// Which directory a need lands in: `--workdir` (worktrees and builds) or
// `--out` (payloads and outputs).
enum class DiskPlace { work, out };

// One component of a run's disk use, e.g. {"baseline checkout", 12 MiB, work}.
struct DiskNeed {
  std::string what;
  std::uint64_t bytes = 0;
  DiskPlace place = DiskPlace::work;
};

// The needs that land on one filesystem and the space it has for them.
struct DiskCheck {
  std::string filesystem_path; // the mount point, e.g. "/tmp"
  std::uint64_t available = 0; // bytes an unprivileged writer may use
  std::vector<DiskNeed> needs;

  // The sum of `needs` (saturating, never wraps).
  std::uint64_t needed() const;
};

// The components of docs/manual/commands.md#refbench-run, in report order: the two checkouts,
// `build_disk` (counted once for the whole run) and, with `replicas` > 1,
// `replicas` - 1 copies of both checkouts in work; each distinct
// payload size and 2 × the largest one (outputs) in out; then per place
// with any needs a k_margin_label line of 10 % of that place's sum, rounded up.
std::vector<DiskNeed> disk_needs(std::uint64_t baseline_checkout, std::uint64_t candidate_checkout,
                                 std::uint64_t build_disk, const std::vector<std::uint64_t>& payload_sizes,
                                 int replicas = 1);

// Free space (statvfs f_bavail × f_frsize) on the filesystem of `path`, or
// of its nearest existing ancestor when `path` does not exist yet; throws
// RefusedError when it cannot be read.
std::uint64_t available_bytes(const std::string& path);

// Groups `needs` by filesystem: one check when `out_dir` and `work_dir` share
// one (needs with the same `what` merged, so the two margins become one
// line), otherwise work then out; places without needs are left out.
std::vector<DiskCheck> plan_disk(const std::string& out_dir, const std::string& work_dir,
                                 const std::vector<DiskNeed>& needs);

// One line per need ("  baseline checkout    12.30 MiB") and per check a
// closing "  total needed 1.200 GiB, available 300.0 MiB on /tmp"; lines
// joined by '\n', no trailing newline.
std::string format_disk_report(const std::vector<DiskCheck>& checks);

// Refuses (RefusedError) the run unless every filesystem of
// plan_disk(`out_dir`, `work_dir`, `needs`) has room: what() is one line
// "not enough disk space for this run: need X, have Y on PATH", hint() the
// next step followed by '\n' and format_disk_report of all checks.
void check_disk(const std::string& out_dir, const std::string& work_dir, const std::vector<DiskNeed>& needs);

// True when the filesystem of `path` has less than k_low_disk_bytes free;
// false when that cannot be told.
bool low_on_disk(const std::string& path);

// `bytes` in B, KiB … EiB with 4 significant digits, e.g. "12.30 MiB".
std::string format_disk_size(std::uint64_t bytes);

} // namespace refbench::runner
