#include "round_runner.hpp"

#include <refbench/process/counters.hpp>
#include <refbench/profile/callgrind.hpp>
#include <refbench/util/files.hpp>

#include <algorithm>
#include <filesystem>
#include <fmt/format.h>

namespace refbench::runner::detail {
namespace {

// A callgrind file of one process holds a few lines per function and call
// run; more than this is no file valgrind wrote.
constexpr std::size_t k_max_profile_file_bytes = std::size_t{1} << 30;

// The profiles callgrind left in `dir`, one file per process, read into one.
std::expected<profile::Profile, std::string> read_profiles(const std::filesystem::path& dir) {
  std::error_code error;
  std::vector<std::filesystem::path> files;
  for (std::filesystem::directory_iterator it(dir, error), end; !error && it != end; it.increment(error)) {
    if (it->path().filename().string().starts_with(process::k_profile_prefix)) {
      files.push_back(it->path());
    }
  }
  if (error) {
    return std::unexpected(fmt::format("cannot read the profiles in {}: {}", dir.string(), error.message()));
  }
  if (files.empty()) {
    return std::unexpected("callgrind wrote no profile: the program did not run under valgrind");
  }
  std::ranges::sort(files);
  profile::Profile profile;
  for (const auto& file : files) {
    profile::CallgrindReader reader(profile);
    std::string problem;
    auto read = util::read_lines(
        file,
        [&](std::string_view line, std::size_t number) {
          if (problem.empty()) {
            if (auto ok = reader.line(line); !ok) {
              problem = fmt::format("line {}: {}", number, ok.error());
            }
          }
        },
        k_max_profile_file_bytes, util::Readable::regular_here);
    if (read && problem.empty()) {
      if (auto ok = reader.finish(); !ok) {
        problem = ok.error();
      }
    }
    if (!read || !problem.empty()) {
      return std::unexpected(
          fmt::format("cannot read the profile {}: {}", file.filename().string(), read ? problem : read.error()));
    }
  }
  return profile;
}

std::vector<model::ExplainedEntry> entries_of(const std::vector<profile::Moved>& moved) {
  std::vector<model::ExplainedEntry> entries;
  for (const auto& m : moved) {
    entries.push_back({m.key.function, m.key.object, m.baseline, m.candidate, m.delta()});
  }
  return entries;
}

} // namespace

double RoundRunner::explain_estimate(std::size_t cell) const {
  const double counted = m_counts.last_cost(cell);
  if (counted > 0) {
    return counted;
  }
  return (m_last_wall[cell][0] + m_last_wall[cell][1]) * process::k_counted_slowdown;
}

std::expected<profile::Profile, std::string> RoundRunner::profile_of(const model::ExplainTarget& target,
                                                                     model::Arm arm) {
  const Slot slot{target.cell, arm};
  const int round = last_round();
  model::Invocation invocation = arm == model::Arm::baseline ? target.baseline : target.candidate;
  invocation.env.push_back("REFBENCH_PAD=");
  const std::string output = fresh_output(slot, round, invocation);
  std::optional<model::CellFailure> failure;
  if (!run_hook_quietly(slot, model::Hook::prepare, round, failure)) {
    return std::unexpected(fmt::format("its prepare hook failed: {}", failure ? failure->description : ""));
  }
  check_links(round);
  const std::filesystem::path dir = m_settings.counts_dir;
  if (dir.empty() || !process::clear_counts(dir)) {
    return std::unexpected(fmt::format("cannot empty {}", dir.string()));
  }
  // the counted timeout, and never past the budget (a command without a timeout gets the budget's)
  const auto left = std::chrono::duration_cast<std::chrono::nanoseconds>(
      std::chrono::duration<double>(std::max(1.0, m_deadline - m_clock())));
  const auto counted = invocation.timeout * process::k_counted_slowdown;
  const auto timeout = counted.count() > 0 ? std::min(counted, left) : left;
  const auto profiled = process::profiled_invocation(invocation, *m_settings.explain_tool, dir, timeout);
  const model::Outcome outcome = m_executor.run(profiled);
  if (!output.empty()) {
    std::error_code ignored;
    std::filesystem::remove(output, ignored);
  }
  if (!model::succeeded(outcome)) {
    return std::unexpected(fmt::format("the {} command, run under callgrind, {}", model::arm_name(arm),
                                       model::describe(outcome, profiled.timeout)));
  }
  return read_profiles(dir);
}

void RoundRunner::explain() {
  if (!m_hooks.explain || !m_hooks.explained) {
    return;
  }
  for (const auto& target : m_hooks.explain(m_record)) {
    if (target.cell >= m_cells.size() || m_cells[target.cell].control) {
      continue; // the A/A control is never explained
    }
    model::Explanation explanation{.cell = target.row, .source = "callgrind", .scope = target.scope};
    const double left = m_deadline - m_clock();
    const double estimate = explain_estimate(target.cell);
    const auto& meta = m_cells[target.cell].meta;
    if (meta.min_duration_seconds > 0 || !meta.window_key.empty()) {
      explanation.problem = "not explained: it runs for a window of time, not an amount of work, so under valgrind "
                            "its counts would be of however little work fits in the window";
    } else if (!m_settings.explain_tool) {
      explanation.problem = m_settings.explain_missing;
    } else if (estimate > left) {
      explanation.problem = fmt::format("about {:.0f} s of counting would not fit in the {:.0f} s left of the "
                                        "budget (raise --budget)",
                                        estimate, std::max(0.0, left));
    }
    if (!explanation.problem.empty()) {
      m_hooks.explained(std::move(explanation), nullptr);
      continue;
    }
    const double start = m_clock();
    auto baseline = profile_of(target, model::Arm::baseline);
    auto candidate = baseline ? profile_of(target, model::Arm::candidate) : baseline;
    explanation.seconds = m_clock() - start;
    m_explain_seconds += explanation.seconds;
    if (!baseline || !candidate) {
      explanation.problem = !baseline ? baseline.error() : candidate.error();
      m_hooks.explained(std::move(explanation), nullptr);
      continue;
    }
    explanation.baseline_instructions = baseline->total;
    explanation.candidate_instructions = candidate->total;
    explanation.functions = entries_of(profile::moved_functions(*baseline, *candidate, model::k_explained_entries));
    explanation.allocation_sites =
        entries_of(profile::moved_allocation_sites(*baseline, *candidate, model::k_explained_entries));
    const auto tree = profile::call_tree(*baseline, *candidate);
    m_hooks.explained(std::move(explanation), &tree);
  }
}

} // namespace refbench::runner::detail
