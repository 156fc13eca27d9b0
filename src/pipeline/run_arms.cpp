#include <refbench/pipeline/run_arms.hpp>
#include <refbench/process/interrupt.hpp>
#include <refbench/process/reaper.hpp>
#include <refbench/runner/preflight.hpp>
#include <refbench/util/clock.hpp>
#include <refbench/util/error.hpp>
#include <refbench/util/files.hpp>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fmt/format.h>

namespace refbench::pipeline {

namespace fs = std::filesystem;

ReapBuildLeftovers::~ReapBuildLeftovers() { process::kill_children_except(keep); }

namespace {

// The {arm} link of candidate `index`: b, then d, e, … (c is the control's).
std::string candidate_link(std::size_t index) {
  return index == 0 ? "b" : std::string(1, static_cast<char>('c' + index));
}

} // namespace

Arms::Arms(const std::string& repo, const fs::path& work, const git::ResolvedRef& baseline,
           const std::vector<git::ResolvedRef>& candidates, bool keep)
    : m_work(work), m_keep(keep) {
  fs::create_directories(work);
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

std::string Arms::path(runner::Arm arm) const { return (m_work / (arm == runner::Arm::baseline ? "a" : "b")).string(); }

std::string Arms::control_path() const { return (m_work / "c").string(); }

std::string Arms::tree(runner::Arm arm) const { return m_paths.at(arm == runner::Arm::baseline ? 0 : 1); }

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
}

void Arms::repoint(const std::string& name, const std::string& target) {
  if (!util::point_symlink(m_work / name, target)) {
    throw MeasurementError(
        fmt::format("cannot point {} at {}: {}", (m_work / name).string(), target, std::strerror(errno)),
        "check that nothing else writes into " + m_work.string());
  }
}

ArmReplicas make_replicas(const Arms& arms, const fs::path& out, const fs::path& work, int count,
                          const std::vector<std::string>& globs, bool keep) {
  ArmReplicas replicas;
  const std::array<std::string, 2> trees{arms.tree(runner::Arm::baseline), arms.tree(runner::Arm::candidate)};
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
                             std::shared_ptr<double> seconds) {
  return [manifests, seconds](int, bool last) {
    const double start = util::monotonic_seconds();
    std::string found;
    for (const auto& manifest : *manifests) {
      const auto changes = manifest.changes(last);
      if (!changes.empty()) {
        found += (found.empty() ? "" : "; ") + manifest.label() + ": " + build::summarize_changes(changes);
      }
    }
    *seconds += util::monotonic_seconds() - start;
    return found.empty() ? found : "a change to " + found;
  };
}

} // namespace refbench::pipeline
