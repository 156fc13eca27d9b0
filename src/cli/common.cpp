#include <refbench/cli/common.hpp>
#include <refbench/cli/terminal.hpp>
#include <refbench/process/invocation.hpp>
#include <refbench/report/csv.hpp>
#include <refbench/report/markdown.hpp>
#include <refbench/report/report_model.hpp>
#include <refbench/runner/preflight.hpp>
#include <refbench/util/error.hpp>
#include <refbench/util/files.hpp>
#include <refbench/util/quantity.hpp>
#include <refbench/util/strings.hpp>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <fmt/format.h>
#include <iostream>

extern char** environ;

namespace refbench::cli {

void add_fail_on_option(CLI::App& command, std::string& fail_on) {
  command.add_option("--fail-on", fail_on, "Which verdict fails: regression, inconclusive or never")
      ->check(CLI::IsMember({"regression", "inconclusive", "never"}))
      ->capture_default_str();
}

void add_format_option(CLI::App& command, std::string& format) {
  command.add_option("--format", format, "Output: markdown, json or csv")
      ->check(CLI::IsMember({"markdown", "json", "csv"}))
      ->capture_default_str();
}

std::string check_seed(const std::string& text) {
  auto seed = util::parse_seed(text);
  return seed ? std::string() : seed.error();
}

std::chrono::nanoseconds duration_flag(const std::string& flag, const std::string& text) {
  auto parsed = util::parse_duration(text);
  if (!parsed) {
    throw UsageError(flag + ": " + parsed.error());
  }
  if (parsed->count() <= 0) {
    throw UsageError(flag + " must be greater than 0, got '" + text + "'");
  }
  return *parsed;
}

std::string read_input_file(const std::string& path) {
  auto text = util::read_file(path);
  if (!text) {
    throw UsageError(fmt::format("cannot read {}: {}", path, text.error()), "check the path");
  }
  return *text;
}

void write_outputs(const std::filesystem::path& out, const nlohmann::json& document) {
  const auto model = report::read_model(document);
  const std::vector<std::pair<std::string, std::string>> files{
      {"results.json", document.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n"},
      {"report.md", report::render_markdown(model)},
      {"report.csv", report::render_csv(model.results)}};
  for (const auto& [name, text] : files) {
    if (!util::write_file_atomically(out / name, text)) {
      const int saved = errno;
      throw MeasurementError("cannot write " + (out / name).string() + ": " + std::strerror(saved),
                             util::out_of_space(saved) || runner::low_on_disk(out.string())
                                 ? "out of disk space: free some space; the journal has every sample"
                                 : "check the --out directory; the journal has every sample");
    }
  }
}

void print_markdown(const nlohmann::json& document, const CommonOptions& common) {
  const auto model = report::read_model(document);
  std::cout << util::without_workflow_commands(
      common.quiet ? report::render_verdict_table(model.results, stdout_table_colour(common.color))
                   : report::render_markdown(model));
}

std::string printable_csv(const std::string& csv) {
  return util::without_workflow_commands(util::printable(csv, "\r\n"));
}

void print_warnings(const nlohmann::json& document) {
  for (const auto& warning : document.value("warnings", nlohmann::json::array())) {
    std::cerr << "refbench: warning: " << util::printable(warning.value("message", std::string())) << "\n";
  }
}

void apply_isolation(process::IsolationPlan& plan, process::Launcher& launcher, bool quiet) {
  if (plan.pinned && !launcher.pin(plan.benchmark)) {
    const int saved = errno;
    process::unpin(plan, fmt::format("CPU isolation: the kernel refused to pin to CPUs {} ({}); running unpinned",
                                     process::format_cpu_list(plan.benchmark), std::strerror(saved)));
  }
  if (plan.pinned && !plan.refbench.empty() && !process::set_affinity(0, plan.refbench)) {
    const int saved = errno;
    // the benchmark is still pinned; refbench stays where it is
    plan.warning = fmt::format("CPU isolation: the kernel refused to move refbench to CPUs {} ({}); it shares the "
                               "benchmark's CPUs",
                               process::format_cpu_list(plan.refbench), std::strerror(saved));
    plan.refbench.clear();
  }
  if (!plan.warning.empty() && !quiet) {
    std::cerr << "refbench: warning: " << plan.warning << "\n";
  }
}

void validate_scrub_names(const std::string& flag, const std::vector<std::string>& names) {
  for (const auto& name : names) {
    if (name.empty() || name.find_first_of(std::string_view("=\0", 2)) != std::string::npos) {
      throw UsageError(fmt::format("{} takes variable names or globs like AWS_*, got '{}'", flag, name),
                       "name the variables to keep from build and cell commands");
    }
  }
}

void print_failures(const runner::RunRecord& record) {
  for (const auto& cell : record.cells) {
    if (!cell.failure) {
      continue;
    }
    const auto& f = *cell.failure;
    std::string round = f.round == 0 ? "warm-up" : fmt::format("round {}", f.round);
    std::cerr << fmt::format("refbench: error: cell {}: the {} command {} in {} — fix the command (its stderr "
                             "ends below) and rerun\n",
                             util::printable(cell.name), runner::arm_label(cell, f.arm), util::printable(f.description),
                             round);
    std::string tail = util::printable(process::last_lines(f.stderr_tail, 10), "\n\t");
    std::size_t start = 0;
    while (!tail.empty() && start <= tail.size()) {
      std::size_t end = std::min(tail.find('\n', start), tail.size());
      std::cerr << "  | " << tail.substr(start, end - start) << "\n";
      start = end + 1;
    }
  }
}

void validate_settings(const runner::RoundSettings& rounds, double threshold, double alpha, double precision) {
  if (!(rounds.budget_seconds >= k_min_budget_seconds)) {
    throw UsageError(fmt::format("the budget (--budget or run.budget) is {}s: no round of interleaved invocations "
                                 "fits in less than {}s",
                                 rounds.budget_seconds, k_min_budget_seconds),
                     "give a budget of at least 1s, e.g. --budget 60s");
  }
  if (rounds.max_rounds < 1) {
    throw UsageError(fmt::format("--max-rounds must be at least 1, got {}", rounds.max_rounds));
  }
  if (rounds.min_rounds < 1 || rounds.min_rounds > rounds.max_rounds) {
    throw UsageError(fmt::format("--min-rounds must be between 1 and --max-rounds ({}), got {}", rounds.max_rounds,
                                 rounds.min_rounds));
  }
  if (rounds.warmup < 0) {
    throw UsageError(fmt::format("--warmup must be 0 or more, got {}", rounds.warmup));
  }
  if (!(std::isfinite(threshold) && threshold > 1.0)) {
    throw UsageError(fmt::format("--threshold must be a ratio above 1 (e.g. 1.15), got {}", threshold));
  }
  if (!(alpha > 0.0 && alpha < 1.0)) {
    throw UsageError(fmt::format("--alpha must be between 0 and 1, got {}", alpha));
  }
  if (!(std::isfinite(precision) && precision > 0.0)) {
    throw UsageError(fmt::format("--precision must be above 0, got {}", precision));
  }
}

analysis::Settings analysis_settings(double threshold, double alpha, int min_rounds, const std::string& interval,
                                     std::uint64_t seed) {
  return {threshold,
          alpha,
          0.95,
          static_cast<std::size_t>(min_rounds),
          interval == "bootstrap" ? analysis::IntervalMethod::bootstrap : analysis::IntervalMethod::signed_rank,
          seed};
}

int exit_code_for(const std::string& verdict, const std::string& fail_on) {
  if (verdict == "error") {
    return static_cast<int>(ExitCode::measurement);
  }
  if ((verdict == "regression" && fail_on != "never") || (verdict == "inconclusive" && fail_on == "inconclusive")) {
    return static_cast<int>(ExitCode::regression);
  }
  return static_cast<int>(ExitCode::ok);
}

} // namespace refbench::cli
