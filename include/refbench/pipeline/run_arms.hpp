#pragma once
// The arms of `refbench run` on disk (docs/manual/commands.md#refbench-run, docs/manual/measurement.md#replicas): the
// worktrees and the equal-length {arm} links, the replicas of each built
// arm, and the reaping of what the builds leave running.

#include <refbench/build/manifest.hpp>
#include <refbench/build/replicas.hpp>
#include <refbench/git/refs.hpp>
#include <refbench/git/worktree.hpp>
#include <refbench/model/record.hpp>
#include <refbench/process/sandbox.hpp>
#include <refbench/report/run_document.hpp>
#include <refbench/runner/replica_placement.hpp>
#include <refbench/runner/rounds.hpp>

#include <array>
#include <filesystem>
#include <functional>
#include <iosfwd>
#include <memory>
#include <string>
#include <sys/types.h>
#include <utility>
#include <vector>

namespace refbench::pipeline {

// Kills, on destruction, every child of refbench but the launcher `keep`:
// what the builds left behind, also when a build failed.
struct ReapBuildLeftovers {
  pid_t keep;
  explicit ReapBuildLeftovers(pid_t launcher) : keep(launcher) {}
  ReapBuildLeftovers(const ReapBuildLeftovers&) = delete;
  ReapBuildLeftovers& operator=(const ReapBuildLeftovers&) = delete;
  ~ReapBuildLeftovers();
};

// The most candidates one run compares with its baseline (docs/manual/commands.md#more-candidates).
inline constexpr std::size_t k_max_candidates = 8;

// Worktrees of the baseline and every candidate plus the equal-length {arm}
// links <work>/a (baseline), <work>/b (the first candidate), <work>/c (the
// A/A control's second arm) and <work>/d, e, … (further candidates);
// removed again on destruction unless kept.
class Arms {
public:
  // Adds the worktrees under `work` and the links; throws RefusedError
  // when a link path is taken by something that is not a link.
  // 1 ≤ candidates.size() ≤ k_max_candidates.
  Arms(const std::string& repo, const std::filesystem::path& work, const git::ResolvedRef& baseline,
       const std::vector<git::ResolvedRef>& candidates, bool keep);
  // Links the worktrees `trees` (the baseline's, then 1 … k_max_candidates
  // candidates'), which stay their owner's: `bisect` builds each commit
  // once and measures it in several steps. The links go on destruction.
  Arms(const std::filesystem::path& work, const std::vector<std::string>& trees);
  Arms(const Arms&) = delete;
  Arms& operator=(const Arms&) = delete;
  ~Arms();

  // The {arm} path of `arm`: <work>/a or <work>/b (the first candidate).
  std::string path(model::Arm arm) const;
  // The A/A control's own {arm} link: another replica of the baseline.
  std::string control_path() const;
  // The worktree of `arm` (the first candidate for Arm::candidate).
  std::string tree(model::Arm arm) const;
  // Candidate `index` (0-based) of `candidate_count()`: its {arm} link and worktree.
  std::size_t candidate_count() const { return m_paths.size() - 1; }
  std::string candidate_path(std::size_t index) const;
  std::string candidate_tree(std::size_t index) const;
  // Points the links at `placement`'s replicas of `replicas` (per arm, the
  // original worktree first); each link is replaced in one rename; throws
  // MeasurementError when it cannot.
  void place(const runner::Placement& placement, const std::array<std::vector<std::string>, 2>& replicas);
  // How the links differ from where refbench last pointed them (docs/manual/security.md): a link re-pointed, replaced
  // or removed, or <work> itself replaced; "" when every link holds.
  std::string moved_links() const;

private:
  void link(const std::string& name, const std::string& target);
  void repoint(const std::string& name, const std::string& target);
  void placed(const std::string& name, const std::string& target); // records where `name` now points
  std::filesystem::path m_work;
  std::pair<dev_t, ino_t> m_work_identity;                  // <work> as made: a directory put in its place is a change
  std::vector<std::pair<std::string, std::string>> m_links; // each link's name and where refbench pointed it
  bool m_keep;
  std::vector<git::Worktree> m_trees; // empty when the worktrees are borrowed
  std::vector<std::string> m_paths;   // the worktrees' paths, the baseline's first
};

// The byte-identical copies of both built arms and, per arm, every
// replica's directory (the worktree first).
struct ArmReplicas {
  build::Replicas copies;
  std::array<std::vector<std::string>, 2> dirs;
};

// Makes `count` replicas of each of `arms`' worktrees (copying `globs`'
// matches only, if any), after checking that the work filesystem has room
// for them (RefusedError, exit 3, otherwise); kept with the worktrees.
ArmReplicas make_replicas(const Arms& arms, const std::filesystem::path& out, const std::filesystem::path& work,
                          int count, const std::vector<std::string>& globs, bool keep);

// The arms' trees as built (docs/manual/security.md): every replica of the
// baseline and of each candidate, and `payloads` when it is a directory,
// recorded with their files' hashes, less the paths matching `writable`
// that are not programs.
std::vector<build::TreeManifest> take_manifests(const Arms& arms, const ArmReplicas& replicas,
                                                const std::filesystem::path& payloads,
                                                const std::vector<std::string>& writable);

// The box of a run (docs/manual/security.md): `out` (and `work`, when it is
// elsewhere) and refbench's own binary read-only but for `out`'s outputs/
// and counts/ (made here); the arms' trees writable again when `writable`
// names paths in them (the trees' check watches them then). Canonical paths.
process::BoxPaths box_paths(const std::filesystem::path& out, const std::filesystem::path& work,
                            const ArmReplicas& replicas, const Arms& arms, const std::vector<std::string>& writable);

// The box of `compare` (docs/manual/security.md): `out` and refbench's own
// binary read-only but for `out`'s outputs/ and counts/ (made here).
process::BoxPaths box_paths(const std::filesystem::path& out);

// The box of `bisect` (docs/manual/security.md), whose steps each write
// their own directory under `out`: refbench's own binary, `out`'s
// payloads/ and, unless `writable` names paths in the trees, `work` (the
// worktrees of every commit, made as the search goes) read-only.
process::BoxPaths box_paths_of_bisect(const std::filesystem::path& out, const std::filesystem::path& work,
                                      const std::vector<std::string>& writable);

// Refuses (RefusedError, exit 3) to go on where `mode` is "required" and
// the kernel already says the box cannot be made; `has_box`: the bench
// could make one at all.
void check_box_possible(model::SandboxMode mode, bool has_box);

// Puts `box`'s commands into the box of `paths` as `mode` asks and returns
// what is in force; with "required", throws RefusedError (exit 3) when
// the box cannot be made, and with "auto" warns once on `err` (unless
// `quiet`) that the commands run unboxed. An empty `box` has none.
report::SandboxInfo box_commands(const std::function<process::SandboxState(const process::BoxPaths&)>& box,
                                 model::SandboxMode mode, const process::BoxPaths& paths, std::ostream& err,
                                 bool quiet);

// What `writable` left out of `manifests`, for the report (docs/manual/security.md): the globs and how many entries
// they exempted; "" when none.
std::string exempt_line(const std::vector<build::TreeManifest>& manifests, const std::vector<std::string>& writable);

// "refbench: the arms' trees are checked after every round: 2 trees, 1 234
// files, 5.6 MiB (hashed in 0.04 s)\n".
std::string trees_line(const std::vector<build::TreeManifest>& manifests, double seconds);

// The share of the measurement's time the checks of the trees may take
// between the warm-up's and the last, once one check costs more than
// k_tree_check_free seconds (docs/manual/security.md): a tree of thousands
// of files is walked after every round whatever the share.
inline constexpr double k_tree_check_share = 0.10;
inline constexpr double k_tree_check_free = 0.05;

// The rounds' check of `manifests`: lstat after each round, the bytes
// hashed again after the last; what changed ("the baseline's tree:
// bin/work (content); …") or "". A round's check is skipped when the last
// cost more than `free_seconds` and it would take the checks past
// k_tree_check_share of the time since this was made (a tree of 200 000
// files); the warm-up's and the last are always made, the last hashing
// the bytes again when `rehash`. Adds the seconds each check took to `*seconds` (what docs/manual/security.md quotes).
runner::TreeCheck tree_check(std::shared_ptr<const std::vector<build::TreeManifest>> manifests,
                             std::shared_ptr<double> seconds, double free_seconds = k_tree_check_free,
                             bool rehash = true);

} // namespace refbench::pipeline
