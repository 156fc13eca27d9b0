#include <refbench/pipeline/run_arms.hpp>
#include <refbench/process/interrupt.hpp>
#include <refbench/process/reaper.hpp>
#include <refbench/runner/preflight.hpp>
#include <refbench/util/clock.hpp>
#include <refbench/util/error.hpp>
#include <refbench/util/files.hpp>
#include <refbench/util/strings.hpp>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fmt/format.h>
#include <ostream>
#include <sys/stat.h>

namespace refbench::pipeline {

namespace fs = std::filesystem;

ReapBuildLeftovers::~ReapBuildLeftovers() { process::kill_children_except(keep); }

namespace {

// The {arm} link of candidate `index`: b, then d, e, … (c is the control's).
std::string candidate_link(std::size_t index) {
  return index == 0 ? "b" : std::string(1, static_cast<char>('c' + index));
}

} // namespace

namespace {

// `dir`'s device and inode by lstat; zeros when it cannot be read.
std::pair<dev_t, ino_t> identity_of(const fs::path& dir) {
  struct stat info {};
  if (::lstat(dir.c_str(), &info) != 0) {
    return {0, 0};
  }
  return {info.st_dev, info.st_ino};
}

} // namespace

Arms::Arms(const std::string& repo, const fs::path& work, const git::ResolvedRef& baseline,
           const std::vector<git::ResolvedRef>& candidates, bool keep)
    : m_work(work), m_keep(keep) {
  fs::create_directories(work);
  m_work_identity = identity_of(work);
  m_trees.push_back(
      git::Worktree::add(repo, baseline.sha, (work / baseline.dir_name).string(), process::interrupt_fd()));
  link("a", baseline.dir_name);
  link("c", baseline.dir_name);
  std::vector<std::string> taken{baseline.dir_name};
  for (std::size_t k = 0; k < candidates.size(); ++k) {
    std::string dir = candidates[k].dir_name; // two arms of one commit get two directories
    for (int n = 2; std::find(taken.begin(), taken.end(), dir) != taken.end(); ++n) {
      dir = fmt::format("{}-{}", candidates[k].dir_name, n);
    }
    taken.push_back(dir);
    m_trees.push_back(git::Worktree::add(repo, candidates[k].sha, (work / dir).string(), process::interrupt_fd()));
    link(candidate_link(k), dir);
  }
  for (auto& tree : m_trees) {
    m_paths.push_back(tree.path());
    if (keep) {
      tree.keep();
    }
  }
}

Arms::Arms(const fs::path& work, const std::vector<std::string>& trees) : m_work(work), m_keep(false), m_paths(trees) {
  fs::create_directories(work);
  m_work_identity = identity_of(work);
  link("a", trees.at(0));
  link("c", trees.at(0));
  for (std::size_t k = 0; k + 1 < trees.size(); ++k) {
    link(candidate_link(k), trees[k + 1]);
  }
}

Arms::~Arms() {
  if (!m_keep) {
    std::error_code ignored;
    fs::remove(m_work / "a", ignored);
    fs::remove(m_work / "c", ignored);
    for (std::size_t k = 0; k < candidate_count(); ++k) {
      fs::remove(m_work / candidate_link(k), ignored);
    }
  }
}

std::string Arms::path(model::Arm arm) const { return (m_work / (arm == model::Arm::baseline ? "a" : "b")).string(); }

std::string Arms::control_path() const { return (m_work / "c").string(); }

std::string Arms::tree(model::Arm arm) const { return m_paths.at(arm == model::Arm::baseline ? 0 : 1); }

std::string Arms::candidate_path(std::size_t index) const { return (m_work / candidate_link(index)).string(); }

std::string Arms::candidate_tree(std::size_t index) const { return m_paths.at(index + 1); }

void Arms::place(const runner::Placement& placement, const std::array<std::vector<std::string>, 2>& replicas) {
  repoint("a", replicas[0].at(static_cast<std::size_t>(placement.baseline)));
  repoint("b", replicas[1].at(static_cast<std::size_t>(placement.candidate)));
  repoint("c", replicas[0].at(static_cast<std::size_t>(placement.control)));
}

// Points <work>/`name` at `target`; a link left by an earlier run is
// replaced, anything else there is the user's and is refused.
void Arms::link(const std::string& name, const std::string& target) {
  const fs::path at = m_work / name;
  std::error_code ec;
  const auto status = fs::symlink_status(at, ec);
  if (fs::exists(status) && !fs::is_symlink(status)) {
    throw RefusedError(fmt::format("{} is in the way: refbench links the arm {} there", at.string(), name),
                       "move it away, or pass another --workdir");
  }
  fs::remove(at, ec);
  fs::create_directory_symlink(target, at, ec);
  if (ec) {
    throw RefusedError(fmt::format("cannot link {} to the worktree: {}", at.string(), ec.message()),
                       "pass a writable --workdir");
  }
  placed(name, target);
}

void Arms::repoint(const std::string& name, const std::string& target) {
  if (!util::point_symlink(m_work / name, target)) {
    throw MeasurementError(
        fmt::format("cannot point {} at {}: {}", (m_work / name).string(), target, std::strerror(errno)),
        "check that nothing else writes into " + m_work.string());
  }
  placed(name, target);
}

void Arms::placed(const std::string& name, const std::string& target) {
  for (auto& [link_name, link_target] : m_links) {
    if (link_name == name) {
      link_target = target;
      return;
    }
  }
  m_links.emplace_back(name, target);
}

std::string Arms::moved_links() const {
  if (identity_of(m_work) != m_work_identity) {
    return fmt::format("{} (replaced: the arms' links are refbench's)", m_work.string());
  }
  std::string found;
  for (const auto& [name, target] : m_links) {
    const fs::path at = m_work / name;
    std::error_code ec;
    std::string what;
    if (!fs::is_symlink(fs::symlink_status(at, ec))) {
      what = "replaced or removed";
    } else if (const auto now = fs::read_symlink(at, ec).string(); ec || now != target) {
      what = fmt::format("re-pointed to {}, not {}", ec ? "?" : now, target);
    }
    if (!what.empty()) {
      found += fmt::format("{}the link {} ({})", found.empty() ? "" : "; ", at.string(), what);
    }
  }
  return found;
}

ArmReplicas make_replicas(const Arms& arms, const fs::path& out, const fs::path& work, int count,
                          const std::vector<std::string>& globs, bool keep) {
  ArmReplicas replicas;
  const std::array<std::string, 2> trees{arms.tree(model::Arm::baseline), arms.tree(model::Arm::candidate)};
  if (count <= 1) {
    replicas.dirs = {std::vector{trees[0]}, std::vector{trees[1]}};
    return replicas;
  }
  const auto copies = static_cast<std::uint64_t>(count - 1);
  runner::check_disk(out.string(), work.string(),
                     {{fmt::format("baseline replicas ({} × built tree)", copies),
                       build::replica_bytes(trees[0], globs) * copies, runner::DiskPlace::work},
                      {fmt::format("candidate replicas ({} × built tree)", copies),
                       build::replica_bytes(trees[1], globs) * copies, runner::DiskPlace::work}});
  for (std::size_t arm = 0; arm < 2; ++arm) {
    replicas.dirs[arm] = replicas.copies.add(trees[arm], count, globs);
  }
  if (keep) {
    replicas.copies.keep();
  }
  return replicas;
}

std::vector<build::TreeManifest> take_manifests(const Arms& arms, const ArmReplicas& replicas, const fs::path& payloads,
                                                const std::vector<std::string>& writable) {
  std::vector<build::TreeManifest> manifests;
  auto add = [&](const std::string& dir, const std::string& whose, std::size_t replica) {
    const auto label = replica == 0 ? whose + "'s tree" : fmt::format("{}'s replica {}", whose, replica + 1);
    manifests.push_back(build::TreeManifest::take(dir, label, writable));
  };
  for (std::size_t r = 0; r < replicas.dirs[0].size(); ++r) {
    add(replicas.dirs[0][r], "the baseline", r);
  }
  for (std::size_t r = 0; r < replicas.dirs[1].size(); ++r) {
    add(replicas.dirs[1][r], arms.candidate_count() > 1 ? "candidate 1" : "the candidate", r);
  }
  for (std::size_t i = 1; i < arms.candidate_count(); ++i) {
    add(arms.candidate_tree(i), fmt::format("candidate {}", i + 1), 0);
  }
  std::error_code ec;
  if (fs::is_directory(fs::symlink_status(payloads, ec))) {
    manifests.push_back(build::TreeManifest::take(payloads, "the payloads", {}));
  }
  return manifests;
}

namespace {

// `path` resolved (links, `..`), or as it is when it cannot be.
std::string resolved(const fs::path& path) {
  std::error_code ec;
  const auto real = fs::canonical(path, ec);
  return ec ? path.string() : real.string();
}

constexpr std::string_view k_required_hint = "run refbench as root or where unprivileged user namespaces are "
                                             "allowed, or set run.sandbox = \"auto\" (--sandbox auto) to measure "
                                             "unboxed";

} // namespace

process::BoxPaths box_paths(const fs::path& out) {
  for (const char* dir : {"outputs", "counts"}) {
    std::error_code ec;
    fs::create_directories(out / dir, ec);
  }
  process::BoxPaths paths;
  paths.read_only.push_back(resolved(out));
  if (const auto self = resolved("/proc/self/exe"); self.starts_with("/")) {
    paths.read_only.push_back(self);
  }
  for (const char* dir : {"outputs", "counts"}) {
    paths.writable.push_back(resolved(out / dir));
  }
  return paths;
}

process::BoxPaths box_paths(const fs::path& out, const fs::path& work, const ArmReplicas& replicas, const Arms& arms,
                            const std::vector<std::string>& writable) {
  auto paths = box_paths(out);
  if (const auto work_dir = resolved(work); !work_dir.starts_with(paths.read_only.front() + "/")) {
    paths.read_only.push_back(work_dir);
  }
  if (!writable.empty()) {
    for (const auto& dirs : replicas.dirs) {
      for (const auto& dir : dirs) {
        paths.writable.push_back(resolved(dir));
      }
    }
    for (std::size_t i = 1; i < arms.candidate_count(); ++i) {
      paths.writable.push_back(resolved(arms.candidate_tree(i)));
    }
  }
  return paths;
}

process::BoxPaths box_paths_of_bisect(const fs::path& out, const fs::path& work,
                                      const std::vector<std::string>& writable) {
  process::BoxPaths paths;
  if (const auto self = resolved("/proc/self/exe"); self.starts_with("/")) {
    paths.read_only.push_back(self);
  }
  std::error_code ec;
  if (fs::is_directory(out / "payloads", ec)) {
    paths.read_only.push_back(resolved(out / "payloads"));
  }
  if (writable.empty()) {
    fs::create_directories(work, ec);
    paths.read_only.push_back(resolved(work));
  }
  return paths;
}

void check_box_possible(model::SandboxMode mode, bool has_box) {
  if (mode != model::SandboxMode::required || !has_box) {
    return;
  }
  if (const auto refusal = process::box_refusal(); !refusal.empty()) {
    throw RefusedError("run.sandbox = \"required\", but the box cannot be made here: " + refusal,
                       std::string(k_required_hint));
  }
}

report::SandboxInfo box_commands(const std::function<process::SandboxState(const process::BoxPaths&)>& box,
                                 model::SandboxMode mode, const process::BoxPaths& paths, std::ostream& err,
                                 bool quiet) {
  process::SandboxState state;
  if (mode == model::SandboxMode::off) {
    state.reason = "run.sandbox = \"off\"";
  } else if (!box) {
    state.reason = "the commands do not run through refbench's launcher";
  } else {
    state = box(paths);
  }
  if (state.mode == "none" && mode == model::SandboxMode::required) {
    throw RefusedError("run.sandbox = \"required\", but the box cannot be made here: " + state.reason,
                       std::string(k_required_hint));
  }
  if (state.mode == "none" && mode == model::SandboxMode::automatic && !quiet) {
    err << "refbench: warning: sandbox: " << util::printable(state.reason)
        << "; the commands run unboxed, the trees' and links' checks watch them (run.sandbox = \"required\" refuses "
           "this)\n";
  }
  return {state.mode, state.reason};
}

std::string exempt_line(const std::vector<build::TreeManifest>& manifests, const std::vector<std::string>& writable) {
  if (writable.empty()) {
    return "";
  }
  std::size_t exempt = 0;
  for (const auto& manifest : manifests) {
    exempt += manifest.exempt();
  }
  std::string globs;
  for (const auto& glob : writable) {
    globs += fmt::format("{}\"{}\"", globs.empty() ? "" : ", ", glob);
  }
  return fmt::format("run.writable = [{}] left {} entries of the arms' trees out of their check, as built; the "
                     "programs among them and the {{arm}} links are checked whatever it says",
                     globs, exempt);
}

std::string trees_line(const std::vector<build::TreeManifest>& manifests, double seconds) {
  std::size_t files = 0;
  std::uint64_t bytes = 0;
  for (const auto& manifest : manifests) {
    files += manifest.files();
    bytes += manifest.bytes();
  }
  return fmt::format("refbench: the arms' trees are checked after every round: {} trees, {} files, {:.1f} MiB "
                     "(hashed in {:.2f} s)\n",
                     manifests.size(), files, static_cast<double>(bytes) / (1024.0 * 1024.0), seconds);
}

runner::TreeCheck tree_check(std::shared_ptr<const std::vector<build::TreeManifest>> manifests,
                             std::shared_ptr<double> seconds, double free_seconds, bool rehash) {
  const double created = util::monotonic_seconds();
  auto last_cost = std::make_shared<double>(0.0);
  return [manifests, seconds, created, last_cost, free_seconds, rehash](int round, bool last) {
    const double start = util::monotonic_seconds();
    // a tree too large to walk after every round within the budget is walked
    // less often, its checks at most k_tree_check_share of the time; the
    // warm-up's and the last (hashed) are always made
    if (!last && round > 0 && *last_cost > free_seconds &&
        *seconds + *last_cost > k_tree_check_share * (start - created)) {
      return std::string();
    }
    std::string found;
    for (const auto& manifest : *manifests) {
      const auto changes = manifest.changes(last && rehash);
      if (!changes.empty()) {
        found += (found.empty() ? "" : "; ") + manifest.label() + ": " + build::summarize_changes(changes);
      }
    }
    *last_cost = util::monotonic_seconds() - start;
    *seconds += *last_cost;
    return found.empty() ? found : "a change to " + found;
  };
}

} // namespace refbench::pipeline
